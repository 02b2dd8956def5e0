// What the config harnesses (experiment, sweep, rtl_spec) share: the registry of every built-in
// kind, made once per fuzzing process, and a small valid experiment for inputs to extend.
#pragma once

#include "accelerators/builtin_kinds.h"
#include "sim/registry.h"

namespace strata_fuzz {

inline const strata::Registry& builtin_registry() {
  static const strata::Registry* r = [] {
    auto* reg = new strata::Registry;
    strata::register_builtin_kinds(*reg);
    return reg;
  }();
  return *r;
}

// Written as base.yaml in the scratch folder by the harnesses whose inputs may say
// `extends: base.yaml`.
inline constexpr const char* kBaseExperiment =
    "hardware:\n  kind: simple_memory\n  clock: 1.6 GHz\n  latency: 27.5 ns\n"
    "  bandwidth: 25.6 GB/s\n  queue_depth: 32\n"
    "workload:\n  kind: memory_synthetic\n  pattern: random\n  requests: 16\n"
    "  request_bytes: 64 B\n  span: 1 MiB\n  clock: 1.6 GHz\n";

}  // namespace strata_fuzz
