// Fuzzes the memory-trace reader (memory/trace/memory_trace_reader.h) in the stl format:
// every request of the input is read until the end or the first InputError.
// Inputs of odd length are named *.rstl (relative cycles), even ones *.stl (absolute).
#include "trace_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return strata_fuzz::fuzz_trace(data, size, strata::TraceFormat::Stl, size % 2 ? "input.rstl" : "input.stl");
}
