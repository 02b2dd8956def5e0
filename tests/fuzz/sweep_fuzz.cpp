// Fuzzes sweep files: load_sweep() (the `sweep:` section: axes, ranges, zip, constraints and
// outputs as muParser expressions, objectives, executors) and expand_sweep() (grid / random /
// lhs points, constraint filtering, each point resolved against the built-in kinds). The
// scratch folder holds base.yaml, a small valid experiment the input may extend.
#include "fuzz_registry.h"
#include "fuzz_util.h"
#include "sim/app/sweep/expansion.h"
#include "sim/app/sweep/sweep_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const strata::Registry& reg = strata_fuzz::builtin_registry();
  static const bool files_written = [] {
    strata_fuzz::write_file("base.yaml", strata_fuzz::kBaseExperiment);
    return true;
  }();
  (void)files_written;
  const std::string path = strata_fuzz::write_file("sweep.yaml", data, size);
  FUZZ_EXPECT_INPUT_ERROR({
    strata::SweepSpec spec = strata::load_sweep(path);
    strata::expand_sweep(spec, reg);
  });
  return 0;
}
