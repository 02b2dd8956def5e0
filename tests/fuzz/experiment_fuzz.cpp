// Fuzzes experiment YAML: resolve_experiment() with every built-in kind registered, i.e. the
// YAML parse, `extends:` chains (the scratch folder holds base.yaml, a valid hardware + workload
// fragment, and loop_a.yaml <-> loop_b.yaml, a cycle; the input itself is exp.yaml, so
// `extends: exp.yaml` is a self-cycle), overrides, the schemas of every kind, unit strings
// (sim/units.h) and the config hash. Nothing is elaborated or run.
#include "accelerators/builtin_kinds.h"
#include "fuzz_util.h"
#include "sim/experiment.h"
#include "sim/registry.h"

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
    strata_fuzz::write_file("loop_a.yaml", "extends: loop_b.yaml\nseed: 2\n");
    strata_fuzz::write_file("loop_b.yaml", "extends: [loop_a.yaml]\n");
    return reg;
  }();
  return *r;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const strata::Registry& reg = registry();
  std::string path = strata_fuzz::write_file("exp.yaml", data, size);
  FUZZ_EXPECT_INPUT_ERROR(strata::resolve_experiment(path, {}, reg));
  return 0;
}
