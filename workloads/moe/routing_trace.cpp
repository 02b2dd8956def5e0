#include "workloads/moe/routing_trace.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/input_error.h"
#include "sim/input_file.h"
#include "sim/json_line.h"
#include "sim/text.h"

namespace strata {
namespace {

using nlohmann::json;

struct Entry {
  TokenRoute route;
  int line = 0;
  int layer_column = 0;
  int token_column = 0;
};

// Parses one line of a routing trace; errors name the line and the key, at the key's column.
class LineParser {
 public:
  LineParser(const std::string& path, int line, const std::string& text) : path_(path), line_(line), text_(text) {}

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw InputError(SourceLoc{path_, line_, column(key)}, key, message);
  }

  // 1-based column of "key" on the line (0 if it cannot be found).
  int column(const std::string& key) const {
    if (key.empty()) return 0;
    const size_t pos = text_.find('"' + key + '"');
    return pos == std::string::npos ? 0 : static_cast<int>(pos) + 1;
  }

  const json& member(const json& obj, const std::string& key) const {
    const auto it = obj.find(key);
    if (it == obj.end()) fail("", fmt::format("missing key \"{}\"", key));
    return *it;
  }

  // A non-negative integer no larger than `max`; a float with an integral value (3.0) is not one.
  std::int64_t id(const json& v, const std::string& key, const std::string& what, std::int64_t max) const {
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(max)) fail(key, fmt::format("{} {} is too large (at most {})", what, u, max));
      return static_cast<std::int64_t>(u);
    }
    if (v.is_number_integer()) {
      const auto i = v.get<std::int64_t>();
      if (i < 0) fail(key, fmt::format("{} must not be negative, got {}", what, i));
      if (i > max) fail(key, fmt::format("{} {} is too large (at most {})", what, i, max));
      return i;
    }
    fail(key, fmt::format("expected an integer {}, got {}", what, v.dump()));
  }

 private:
  const std::string& path_;
  int line_;
  const std::string& text_;
};

}  // namespace

std::vector<LayerRouting> read_routing_trace(const std::string& path, std::int32_t num_experts, std::int32_t top_k) {
  if (num_experts < 1) throw std::invalid_argument(fmt::format("num_experts must be at least 1, got {}", num_experts));
  if (top_k < 0 || top_k > num_experts)
    throw std::invalid_argument(fmt::format("top_k must be between 0 and num_experts ({}), got {}", num_experts, top_k));
  std::ifstream in;
  open_input_file(in, path, "routing trace");

  // layer -> token -> entry; ordered maps keep memory proportional to the lines read even for a
  // huge token_idx, and give a deterministic order for the gap check.
  std::map<std::int64_t, std::map<std::int64_t, Entry>> layers;
  std::string text;
  int line = 0;
  while (read_line(in, text)) {
    ++line;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    const size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos || text[first] == '#') continue;
    const LineParser p(path, line, text);

    const json obj = parse_json_line(text, path, line);
    if (!obj.is_object()) p.fail("", fmt::format("expected a JSON object, got {}", obj.type_name()));

    const std::int64_t layer = p.id(p.member(obj, "layer"), "layer", "layer", std::numeric_limits<std::int32_t>::max());
    const std::int64_t token = p.id(p.member(obj, "token_idx"), "token_idx", "token_idx",
                                    std::numeric_limits<std::int64_t>::max() - 1);

    Entry entry;
    entry.line = line;
    entry.layer_column = p.column("layer");
    entry.token_column = p.column("token_idx");
    const json& experts = p.member(obj, "experts");
    if (!experts.is_array()) p.fail("experts", fmt::format("expected an array of expert ids, got {}", experts.type_name()));
    if (top_k > 0 && experts.size() != static_cast<size_t>(top_k))
      p.fail("experts", fmt::format("expected {} experts (top_k), got {}", top_k, experts.size()));
    if (experts.size() > static_cast<size_t>(num_experts))
      p.fail("experts", fmt::format("{} experts given, more than num_experts ({})", experts.size(), num_experts));
    for (const json& e : experts) {
      if (!e.is_number_integer()) p.fail("experts", fmt::format("expected an integer expert id, got {}", e.dump()));
      // nlohmann holds non-negative integers as unsigned and negative ones as signed.
      const bool in_range = e.is_number_unsigned() ? e.get<std::uint64_t>() < static_cast<std::uint64_t>(num_experts)
                                                   : e.get<std::int64_t>() >= 0 && e.get<std::int64_t>() < num_experts;
      if (!in_range) p.fail("experts", fmt::format("expert {} is out of range 0..{}", e.dump(), num_experts - 1));
      const std::int64_t id = e.get<std::int64_t>();
      if (std::find(entry.route.experts.begin(), entry.route.experts.end(), id) != entry.route.experts.end())
        p.fail("experts", fmt::format("expert {} is listed twice", id));
      entry.route.experts.push_back(static_cast<std::int32_t>(id));
    }

    const json& gates = p.member(obj, "gating_probs");
    if (!gates.is_array()) p.fail("gating_probs", fmt::format("expected an array of probabilities, got {}", gates.type_name()));
    if (gates.size() != experts.size())
      p.fail("gating_probs", fmt::format("{} gating_probs for {} experts", gates.size(), experts.size()));
    double sum = 0;
    for (const json& g : gates) {
      if (!g.is_number()) p.fail("gating_probs", fmt::format("expected a number, got {}", g.dump()));
      const double v = g.get<double>();
      if (!(v >= 0 && v <= 1)) p.fail("gating_probs", fmt::format("gating probability {} is outside [0, 1]", g.dump()));
      sum += v;
      entry.route.gates.push_back(static_cast<float>(v));
    }
    if (sum > 1.0 + 1e-3) p.fail("gating_probs", fmt::format("gating_probs sum to {}, more than 1", sum));

    auto& tokens = layers[layer];
    const auto [it, inserted] = tokens.emplace(token, std::move(entry));
    if (!inserted)
      throw InputError(SourceLoc{path, line, p.column("token_idx")}, "token_idx",
                       fmt::format("layer {} token {} is given twice (first on line {})", layer, token, it->second.line));
  }
  if (in.bad()) throw InputError(SourceLoc{path}, "", "read error");
  if (layers.empty()) throw InputError(SourceLoc{path}, "", "routing trace holds no routing lines");

  // Density: layers 0..max, each with tokens 0..max_token.
  std::int64_t max_token = -1, max_layer = 0;
  const Entry* max_entry = nullptr;
  for (const auto& [l, tokens] : layers)
    if (tokens.rbegin()->first > max_token) {
      max_token = tokens.rbegin()->first;
      max_layer = l;
      max_entry = &tokens.rbegin()->second;
    }
  const auto gap = [&](const Entry& at, const std::string& key, const std::string& message) {
    throw InputError(SourceLoc{path, at.line, key == "layer" ? at.layer_column : at.token_column}, key, message);
  };
  std::int64_t expect_layer = 0;
  for (const auto& [l, tokens] : layers) {
    if (l != expect_layer)
      gap(tokens.begin()->second, "layer",
          fmt::format("layer {} is given but layer {} has no routing lines", l, expect_layer));
    ++expect_layer;
    std::int64_t expect_token = 0;
    for (const auto& [t, entry] : tokens) {
      if (t != expect_token)
        gap(entry, "token_idx", fmt::format("layer {} has token {} but no token {}", l, t, expect_token));
      ++expect_token;
    }
    if (expect_token <= max_token)
      gap(*max_entry, "token_idx",
          fmt::format("layer {} stops at token {} but layer {} has token {} here", l, expect_token - 1, max_layer,
                      max_token));
  }

  std::vector<LayerRouting> out(layers.size());
  for (auto& [l, tokens] : layers) {
    LayerRouting& r = out[static_cast<size_t>(l)];
    r.layer = static_cast<std::int32_t>(l);
    r.num_experts = num_experts;
    r.tokens.reserve(tokens.size());
    for (auto& [t, entry] : tokens) r.tokens.push_back(std::move(entry.route));
  }
  return out;
}

void write_routing_trace(const std::vector<LayerRouting>& layers, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError(SourceLoc{path}, "", "cannot write routing trace");
  std::int32_t experts = 0;
  std::int64_t tokens = 0;
  for (const LayerRouting& l : layers) {
    experts = std::max(experts, l.num_experts);
    tokens = std::max<std::int64_t>(tokens, static_cast<std::int64_t>(l.tokens.size()));
  }
  out << fmt::format("# strata moe routing trace: {} layers, {} tokens, {} experts\n", layers.size(), tokens, experts);
  std::string line;
  for (const LayerRouting& l : layers) {
    for (size_t t = 0; t < l.tokens.size(); ++t) {
      const TokenRoute& r = l.tokens[t];
      if (r.gates.size() != r.experts.size())
        throw std::invalid_argument(
            fmt::format("layer {} token {}: {} gates for {} experts", l.layer, t, r.gates.size(), r.experts.size()));
      line = fmt::format("{{\"layer\": {}, \"token_idx\": {}, \"experts\": [", l.layer, t);
      for (size_t i = 0; i < r.experts.size(); ++i) line += fmt::format(i ? ", {}" : "{}", r.experts[i]);
      line += "], \"gating_probs\": [";
      for (size_t i = 0; i < r.gates.size(); ++i) {
        if (!std::isfinite(r.gates[i]))
          throw std::invalid_argument(fmt::format("layer {} token {}: gate {} is not finite", l.layer, t, r.gates[i]));
        line += fmt::format(i ? ", {}" : "{}", r.gates[i]);
      }
      line += "]}\n";
      out << line;
    }
  }
  out.close();
  if (!out) throw InputError(SourceLoc{path}, "", "cannot write routing trace");
}

}  // namespace strata
