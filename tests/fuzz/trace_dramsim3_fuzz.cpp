// Fuzzes the memory-trace reader (memory/trace/memory_trace_reader.h) in the dramsim3 format:
// every request of the input is read until the end or the first InputError.
#include "trace_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return strata_fuzz::fuzz_trace(data, size, strata::TraceFormat::Dramsim3, "input.ds3");
}
