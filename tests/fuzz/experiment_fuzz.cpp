// Fuzzes experiment YAML: resolve_experiment() with every built-in kind registered, i.e. the
// YAML parse, `extends:` chains (the scratch folder holds base.yaml, a valid hardware + workload
// fragment, and loop_a.yaml <-> loop_b.yaml, a cycle; the input itself is exp.yaml, so
// `extends: exp.yaml` is a self-cycle), overrides, the schemas of every kind, unit strings
// (sim/units.h) and the config hash. Nothing is elaborated or run.
#include "fuzz_registry.h"
#include "fuzz_util.h"
#include "sim/app/experiment.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const strata::Registry& reg = strata_fuzz::builtin_registry();
  static const bool files_written = [] {
    strata_fuzz::write_file("base.yaml", strata_fuzz::kBaseExperiment);
    strata_fuzz::write_file("loop_a.yaml", "extends: loop_b.yaml\nseed: 2\n");
    strata_fuzz::write_file("loop_b.yaml", "extends: [loop_a.yaml]\n");
    return true;
  }();
  (void)files_written;
  const std::string path = strata_fuzz::write_file("exp.yaml", data, size);
  FUZZ_EXPECT_INPUT_ERROR(strata::resolve_experiment(path, {}, reg));
  return 0;
}
