#include "rtl/comparison.h"

#include <cstdlib>
#include <map>

#include <fmt/format.h>

namespace strata {
namespace {

Timing timing_of(const std::vector<Fire>& fires, const std::vector<StreamDecl>& decls) {
  Timing t;
  for (const Fire& f : fires) {
    bool input = false;
    for (const StreamDecl& d : decls)
      if (d.name == f.stream) input = d.input;
    if (input && !t.first_input) t.first_input = f.cycle;
    if (!input) {
      if (!t.first_output) t.first_output = f.cycle;
      t.last_output = f.cycle;
    }
  }
  return t;
}

// The data port holding element `e` of a stream, for reports.
std::string data_port(const StreamPorts& p, const StreamDecl& d, int e) {
  if (p.data.size() == 1) return fmt::format("{}[{}:{}]", p.data.front(), (e + 1) * d.element_bits - 1, e * d.element_bits);
  return p.data[static_cast<size_t>(std::min<int>(e, static_cast<int>(p.data.size()) - 1))];
}

std::string beat_text(const Beat& b) {
  return fmt::format("[{}]{}", fmt::join(b.elems, ", "), b.last ? " last" : "");
}

}  // namespace

Comparison compare_fires(const RtlSpec& spec, const std::vector<StreamDecl>& decls, const std::vector<Fire>& model,
                         const std::vector<Fire>& rtl) {
  Comparison c;
  c.model = timing_of(model, decls);
  c.rtl = timing_of(rtl, decls);
  auto consider = [&](Divergence d) {
    if (!c.first || d.cycle < c.first->cycle) c.first = std::move(d);
  };
  for (const StreamDecl& d : decls) {
    const StreamPorts* ports = nullptr;
    for (const StreamPorts& p : spec.streams)
      if (p.stream == d.name) ports = &p;
    std::vector<const Fire*> m, r;
    for (const Fire& f : model)
      if (f.stream == d.name) m.push_back(&f);
    for (const Fire& f : rtl)
      if (f.stream == d.name) r.push_back(&f);
    StreamComparison s;
    s.stream = d.name;
    s.expected_beats = m.size();
    s.actual_beats = r.size();
    const std::int64_t tolerance = d.input ? 0 : ports->latency_tolerance;
    for (size_t i = 0; i < std::min(m.size(), r.size()); ++i) {
      const Fire& a = *m[i];
      const Fire& b = *r[i];
      const std::int64_t dt = static_cast<std::int64_t>(b.cycle) - static_cast<std::int64_t>(a.cycle);
      s.max_cycle_error = std::max(s.max_cycle_error, std::abs(dt));
      if (std::abs(dt) > tolerance) {
        ++s.timing_mismatches;
        consider(Divergence{std::min(a.cycle, b.cycle), d.name, ports->valid, "timing",
                            fmt::format("beat {} fires at cycle {}", i, a.cycle), fmt::format("at cycle {}", b.cycle), i});
      }
      if (a.beat.elems != b.beat.elems || a.beat.last != b.beat.last) {
        ++s.value_mismatches;
        int e = 0;
        while (e < d.elements && a.beat.elems[static_cast<size_t>(e)] == b.beat.elems[static_cast<size_t>(e)]) ++e;
        const bool last_only = e == d.elements;
        consider(Divergence{b.cycle, d.name, last_only ? ports->last : data_port(*ports, d, e), "value",
                            last_only ? fmt::format("last = {}", a.beat.last) : fmt::format("{} (beat {} = {})", a.beat.elems[e], i, beat_text(a.beat)),
                            last_only ? fmt::format("last = {}", b.beat.last) : fmt::format("{} (beat {} = {})", b.beat.elems[e], i, beat_text(b.beat)),
                            i});
      }
    }
    if (m.size() > r.size())
      consider(Divergence{m[r.size()]->cycle, d.name, ports->valid, "missing beat",
                          fmt::format("beat {} at cycle {}", r.size(), m[r.size()]->cycle), "no handshake", r.size()});
    if (r.size() > m.size())
      consider(Divergence{r[m.size()]->cycle, d.name, ports->valid, "extra beat", "no handshake",
                          fmt::format("beat {} at cycle {}", m.size(), r[m.size()]->cycle), m.size()});
    c.streams.push_back(s);
  }
  return c;
}

nlohmann::ordered_json to_json(const Comparison& c) {
  nlohmann::ordered_json j;
  j["match"] = c.match();
  if (c.first) {
    const Divergence& d = *c.first;
    j["first_divergence"] = {{"cycle", d.cycle}, {"stream", d.stream}, {"port", d.port}, {"what", d.what},
                             {"beat", d.beat},   {"expected", d.expected}, {"actual", d.actual}};
  }
  auto timing = [](const Timing& t) {
    nlohmann::ordered_json x;
    x["first_input_cycle"] = t.first_input ? nlohmann::ordered_json(*t.first_input) : nlohmann::ordered_json();
    x["first_output_cycle"] = t.first_output ? nlohmann::ordered_json(*t.first_output) : nlohmann::ordered_json();
    x["last_output_cycle"] = t.last_output ? nlohmann::ordered_json(*t.last_output) : nlohmann::ordered_json();
    x["latency_cycles"] = t.latency();
    return x;
  };
  j["model"] = timing(c.model);
  j["rtl"] = timing(c.rtl);
  j["streams"] = nlohmann::ordered_json::array();
  for (const auto& s : c.streams)
    j["streams"].push_back({{"stream", s.stream},
                            {"expected_beats", s.expected_beats},
                            {"actual_beats", s.actual_beats},
                            {"value_mismatches", s.value_mismatches},
                            {"timing_mismatches", s.timing_mismatches},
                            {"max_cycle_error", s.max_cycle_error}});
  return j;
}

}  // namespace strata
