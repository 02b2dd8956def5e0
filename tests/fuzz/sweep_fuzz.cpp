// Fuzzes sweep files: load_sweep() (the `sweep:` section: axes, ranges, zip, constraints and
// outputs as muParser expressions, objectives, executors) and expand_sweep() (grid / random /
// lhs points, constraint filtering, each point resolved against the built-in kinds). The
// scratch folder holds base.yaml, a small valid experiment the input may extend.
#include "accelerators/builtin_kinds.h"
#include "fuzz_util.h"
#include "sim/registry.h"
#include "sim/sweep/expansion.h"
#include "sim/sweep/sweep_spec.h"

namespace {
const strata::Registry& registry() {
  static const strata::Registry* r = [] {
    auto* reg = new strata::Registry;
    strata::register_builtin_kinds(*reg);
    strata_fuzz::write_file("base.yaml",
                            "hardware:\n  kind: simple_memory\n  clock: 1.6 GHz\n  latency: 27.5 ns\n"
                            "  bandwidth: 25.6 GB/s\n  queue_depth: 32\n"
                            "workload:\n  kind: memory_synthetic\n  pattern: random\n  requests: 16\n"
                            "  request_bytes: 64 B\n  span: 1 MiB\n  clock: 1.6 GHz\n");
    return reg;
  }();
  return *r;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const strata::Registry& reg = registry();
  std::string path = strata_fuzz::write_file("sweep.yaml", data, size);
  FUZZ_EXPECT_INPUT_ERROR({
    strata::SweepSpec spec = strata::load_sweep(path);
    strata::expand_sweep(spec, reg);
  });
  return 0;
}
