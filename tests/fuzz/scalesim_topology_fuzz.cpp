// Fuzzes SCALE-Sim topology CSVs (accelerators/npu/scalesim_files.h read_topology): the GEMM and
// convolution headers, optional columns, depthwise ("DP") layer splitting.
#include "accelerators/npu/scalesim_files.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = strata_fuzz::write_file("topology.csv", data, size);
  FUZZ_EXPECT_INPUT_ERROR(strata::scalesim::read_topology(path));
  return 0;
}
