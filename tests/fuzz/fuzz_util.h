// Shared helpers of the fuzz harnesses (tests/fuzz/*_fuzz.cpp).
//
// Each harness defines LLVMFuzzerTestOneInput. Built with -fsanitize=fuzzer it is a libFuzzer
// target; built with the normal compiler it links replay_main.cpp instead, which runs it over the
// files of its corpus and regressions folders (CTest fuzz_replay_<name>).
//
// Most parsers take a path, so the input is written to a file in a per-process scratch folder
// (removed at exit). strata::InputError is the expected rejection of bad input and is caught by
// the harness (FUZZ_EXPECT_INPUT_ERROR); anything else that escapes is a bug.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "sim/input_error.h"

namespace strata_fuzz {

// The memory budget of Strata's up-front size checks (sim/memory_budget.h), set below the 2 GB
// RSS limit scripts/fuzz gives libFuzzer: an input claiming more must be refused with an
// InputError, which is what the harness checks, and not reach the allocator.
inline const bool kMemoryLimitSet = ::setenv("STRATA_MEMORY_LIMIT", "1 GiB", 0) == 0;

// The per-process scratch folder, created on first use under $TMPDIR (or /tmp).
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::string templ = std::string(base && *base ? base : "/tmp") + "/strata-fuzz-XXXXXX";
    if (!mkdtemp(templ.data())) std::abort();
    static std::string remove_at_exit;
    remove_at_exit = templ;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(remove_at_exit, ec);
    });
    return templ;
  }();
  return dir;
}

// Writes `bytes` to <scratch>/<name> and returns the path.
inline std::string write_file(const std::string& name, std::string_view bytes) {
  std::string path = scratch_dir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) std::abort();
  return path;
}

inline std::string write_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  return write_file(name, std::string_view(reinterpret_cast<const char*>(data), size));
}

}  // namespace strata_fuzz

// Runs the statements given; an InputError is the parser rejecting the input, which is fine.
// (Variadic, so a braced body may contain commas.)
#define FUZZ_EXPECT_INPUT_ERROR(...)      \
  do {                                    \
    try {                                 \
      __VA_ARGS__;                        \
    } catch (const strata::InputError&) { \
    }                                     \
  } while (0)
