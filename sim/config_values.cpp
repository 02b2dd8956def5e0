#include "sim/config_values.h"

#include <charconv>

#include <fmt/format.h>

#include "sim/text.h"

namespace strata {

void config_fail(const ConfigNode& n, const std::string& key, const std::string& message) {
  throw InputError(n.loc().line ? n.loc() : n.key_loc(), key, message);
}

const std::string& config_text(const ConfigNode& n, const std::string& key) {
  if (!n.is_scalar()) config_fail(n, key, fmt::format("expected a value, got {}", n.type_name()));
  if (n.value().empty()) config_fail(n, key, "must not be empty");
  return n.value();
}

std::int64_t config_integer(const ConfigNode& n, const std::string& key, std::int64_t lo, std::int64_t hi) {
  const std::string_view t = trim(config_text(n, key));
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || ptr != t.data() + t.size()) config_fail(n, key, fmt::format("expected an integer, got \"{}\"", t));
  if (v < lo || v > hi) config_fail(n, key, fmt::format("{} is out of range [{}, {}]", v, lo, hi));
  return v;
}

const ConfigNode& config_required(const ConfigNode& map, const std::string& name, const std::string& key) {
  const ConfigNode* n = map.find(name);
  if (!n) config_fail(map, key, "missing");
  return *n;
}

void config_only_keys(const ConfigNode& map, const std::string& key, std::initializer_list<const char*> allowed) {
  if (!map.is_map()) config_fail(map, key, "expected a mapping");
  std::string list;
  for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  for (const auto& [k, v] : map.entries()) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || k == a;
    if (!ok) config_fail(v, key.empty() ? k : key + "." + k, fmt::format("unknown key (expected {})", list));
  }
}

}  // namespace strata
