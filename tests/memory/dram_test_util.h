// Helpers for the DRAM tests: a preset as a DramSpec, and a ChannelController driven cycle by
// cycle without SystemC (its own statistics, an optional protocol checker).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "accelerators/builtin_kinds.h"
#include "memory/dram/channel_controller.h"
#include "memory/dram/dram.h"
#include "memory/dram/protocol_checker.h"
#include "sim/config_loader.h"
#include "sim/registry.h"
#include "test_util.h"

namespace strata::testing {

inline const std::vector<std::string>& dram_presets() {
  static const std::vector<std::string> names = {"ddr4-3200", "ddr5-4800", "lpddr5-6400", "hbm2", "hbm2e", "hbm3"};
  return names;
}

// The validated `dram` node of configs/hardware/memory/<preset>.yaml with `overrides`
// ("controller.refresh=none", ...) applied.
struct DramPreset {
  Registry registry;
  ConfigNode node;
  ValidatedNode validated;
  DramSpec spec;
  ControllerConfig controller;
  std::string mapping;
};

inline std::unique_ptr<DramPreset> load_dram_preset(const std::string& name, const std::vector<std::string>& overrides = {}) {
  auto p = std::make_unique<DramPreset>();
  register_builtin_kinds(p->registry);
  p->node = load_config(source_path("configs/hardware/memory/" + name + ".yaml"));
  for (const std::string& o : overrides) apply_override(p->node, o);
  static const KindSpec dram = Dram::spec();
  p->validated = validate(p->node, dram, "hardware", p->registry);
  const double clock = p->validated.params.quantity("clock");
  p->spec = DramSpec::from_config(p->validated, clock);
  p->controller = Dram::controller_config(p->validated.child("controller"), p->spec);
  p->mapping = p->validated.child("controller").params.string("mapping");
  return p;
}

// One channel's controller with private statistics.
class ControllerHarness {
 public:
  ControllerHarness(const DramSpec& spec, const ControllerConfig& config, bool check_protocol = false)
      : spec_(spec) {
    const DramProtocol protocol = spec.protocol();
    for (int c = 0; c < protocol.size(); ++c)
      stats_.commands.push_back(&reg_.counter("commands." + protocol.name(static_cast<DramCmd>(c)), "", ""));
    stats_.reads = &reg_.counter("reads", "", "");
    stats_.writes = &reg_.counter("writes", "", "");
    stats_.forwarded_reads = &reg_.counter("forwarded", "", "");
    stats_.row_hits = &reg_.counter("hits", "", "");
    stats_.row_misses = &reg_.counter("misses", "", "");
    stats_.row_conflicts = &reg_.counter("conflicts", "", "");
    stats_.read_latency = &reg_.distribution("rl", "", "");
    stats_.write_latency = &reg_.distribution("wl", "", "");
    stats_.read_queue = &reg_.time_average("rq", "", "");
    stats_.write_queue = &reg_.time_average("wq", "", "");
    if (check_protocol) checker_ = std::make_unique<ProtocolChecker>(spec, config.refresh != ControllerConfig::Refresh::None);
    ctrl_ = std::make_unique<ChannelController>(spec, config, stats_, checker_.get());
  }
  ChannelController& ctrl() { return *ctrl_; }
  const ChannelStats& stats() const { return stats_; }

  // Steps until every queued read has completed or `limit` cycles pass; returns the cycle of
  // the last data end. Completed tags go to `done`.
  std::uint64_t drain(std::uint64_t& now, std::vector<ChannelController::Completion>& done, std::uint64_t limit) {
    std::uint64_t last = now;
    while (!ctrl_->idle() && now < limit) {
      const std::uint64_t next = ctrl_->step(now, done);
      for (const auto& c : done) last = std::max(last, c.cycle);
      if (!ctrl_->violation().empty()) return last;
      now = next == ChannelController::kIdle ? now + 1 : next;
    }
    return last;
  }

 private:
  DramSpec spec_;
  StatsRegistry reg_;
  ChannelStats stats_;
  std::unique_ptr<ProtocolChecker> checker_;
  std::unique_ptr<ChannelController> ctrl_;
};

}  // namespace strata::testing
