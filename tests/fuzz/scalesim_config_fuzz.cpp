// Fuzzes SCALE-Sim configs (accelerators/npu/scalesim_files.h read_config): the INI syntax,
// sections, case-insensitive keys and the required array / SRAM / dataflow values.
#include "accelerators/npu/scalesim_files.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = strata_fuzz::write_file("scalesim.cfg", data, size);
  FUZZ_EXPECT_INPUT_ERROR(strata::scalesim::read_config(path));
  return 0;
}
