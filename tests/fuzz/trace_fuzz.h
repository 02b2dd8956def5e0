// The body of the four memory-trace harnesses (trace_<format>_fuzz.cpp): the input is written
// to `file_name` and every request read until the end or the first InputError.
#pragma once

#include "fuzz_util.h"
#include "memory/trace/memory_trace_reader.h"

namespace strata_fuzz {

inline int fuzz_trace(const uint8_t* data, size_t size, strata::TraceFormat format, const char* file_name) {
  const std::string path = write_file(file_name, data, size);
  FUZZ_EXPECT_INPUT_ERROR({
    strata::MemoryTraceReader reader(path, 64, format);
    while (reader.next()) {
    }
  });
  return 0;
}

}  // namespace strata_fuzz
