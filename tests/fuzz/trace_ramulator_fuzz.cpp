// Fuzzes the memory-trace reader (memory/trace/memory_trace_reader.h) in the ramulator format:
// every request of the input is read until the end or the first InputError.
#include "fuzz_util.h"
#include "memory/trace/memory_trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = strata_fuzz::write_file("input.ldst", data, size);
  FUZZ_EXPECT_INPUT_ERROR({
    strata::MemoryTraceReader reader(path, 64, strata::TraceFormat::Ramulator);
    while (reader.next()) {
    }
  });
  return 0;
}
