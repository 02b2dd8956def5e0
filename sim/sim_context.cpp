#include "sim/sim_context.h"

#include "sim/registry.h"
#include "sim/tech/tech_table.h"

#include <xxhash.h>

namespace strata {

SimContext::SimContext(const Registry& registry, std::uint64_t seed, double stats_window_s)
    : registry_(registry), seed_(seed), stats_window_s_(stats_window_s) {
  timeline_.set_reported_time(&stats_.reported_time());
}

std::mt19937_64 SimContext::rng(const std::string& stream) const {
  return std::mt19937_64(XXH3_64bits_withSeed(stream.data(), stream.size(), seed_));
}

void SimContext::report_text(const std::string& key, std::string value) {
  for (auto& [k, v] : summary_texts_)
    if (k == key) {
      v = std::move(value);
      return;
    }
  summary_texts_.emplace_back(key, std::move(value));
}

void SimContext::report(std::string key, std::string stat, std::string field, double scale) {
  SummaryField f{std::move(key), std::move(stat), std::move(field), scale};
  for (SummaryField& old : summary_)
    if (old.key == f.key) {
      old = std::move(f);
      return;
    }
  summary_.push_back(std::move(f));
}

void SimContext::fail(const InputError& e) {
  if (!failure_) failure_ = e;
}

const TechTable& SimContext::tech(const std::string& name, const SourceLoc& where, const std::string& key) {
  auto it = tech_.find(name);
  if (it == tech_.end()) it = tech_.emplace(name, TechTable::load(name, where, key, registry_.tech_sections())).first;
  return *it->second;
}

}  // namespace strata
