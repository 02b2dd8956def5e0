// Fuzzes the OpGraph JSON Lines trace (workloads/opgraph/opgraph_jsonl.h, the `op_trace`
// workload's reader): header, tensors, operators, shapes, number formats, dependencies.
#include "fuzz_util.h"
#include "workloads/opgraph/opgraph_jsonl.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = strata_fuzz::write_file("trace.jsonl", data, size);
  FUZZ_EXPECT_INPUT_ERROR(strata::read_opgraph_jsonl(path));
  return 0;
}
