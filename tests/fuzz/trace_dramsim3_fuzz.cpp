// Fuzzes the memory-trace reader (memory/trace/memory_trace_reader.h) in the dramsim3 format:
// every request of the input is read until the end or the first InputError.
#include "fuzz_util.h"
#include "memory/trace/memory_trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = strata_fuzz::write_file("input.ds3", data, size);
  FUZZ_EXPECT_INPUT_ERROR({
    strata::MemoryTraceReader reader(path, 64, strata::TraceFormat::Dramsim3);
    while (reader.next()) {
    }
  });
  return 0;
}
