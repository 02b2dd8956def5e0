// Fuzzes MoE routing traces (workloads/moe/routing_trace.h): read_routing_trace with 8 experts and
// top_k = input length mod 3 (0: any k), i.e. the JSON Lines parse, key checks, expert and gate
// ranges, and the completeness of layers and tokens.
#include "fuzz_util.h"
#include "workloads/moe/routing_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = strata_fuzz::write_file("routing.jsonl", data, size);
  FUZZ_EXPECT_INPUT_ERROR(strata::read_routing_trace(path, 8, static_cast<std::int32_t>(size % 3)));
  return 0;
}
