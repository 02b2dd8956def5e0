// Fuzzes rtl-check specs (rtl/rtl_spec.h load_rtl_spec) against the built-in reference models:
// only the spec is parsed and checked; Verilator never runs. The scratch folder holds tile.v and
// stim.txt, so `sources: [tile.v]` and `stimulus: {file: stim.txt}` name existing files.
#include "fuzz_registry.h"
#include "fuzz_util.h"
#include "rtl/rtl_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const strata::Registry& reg = strata_fuzz::builtin_registry();
  static const bool files_written = [] {
    strata_fuzz::write_file("tile.v", "module systolic_tile(input clk, input rst_n);\nendmodule\n");
    strata_fuzz::write_file("stim.txt", "");
    return true;
  }();
  (void)files_written;
  const std::string path = strata_fuzz::write_file("spec.yaml", data, size);
  FUZZ_EXPECT_INPUT_ERROR(strata::load_rtl_spec(path, reg));
  return 0;
}
