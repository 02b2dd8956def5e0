// The main of the fuzz_replay_<name> executables: runs the harness linked with it over every
// file named on the command line (folders: every regular file in them, recursively, in sorted
// order), so the seed corpus and the regression inputs are replayed by CTest without libFuzzer.
// An exception escaping the harness fails the run, naming the file; a crash or sanitizer report
// ends the process as it would under libFuzzer.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// libsystemc.so references sc_main; this executable owns main().
extern "C" int sc_main(int, char*[]) { return 0; }

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg(argv[i]);
    if (fs::is_directory(arg)) {
      for (const auto& e : fs::recursive_directory_iterator(arg))
        if (e.is_regular_file()) files.push_back(e.path());
    } else if (fs::is_regular_file(arg)) {
      files.push_back(arg);
    } else if (!fs::exists(arg)) {
      continue;  // an absent regressions folder is fine
    }
  }
  std::sort(files.begin(), files.end());
  int failed = 0;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "FAIL %s: uncaught %s\n", f.c_str(), e.what());
      ++failed;
    } catch (...) {
      std::fprintf(stderr, "FAIL %s: uncaught non-std exception\n", f.c_str());
      ++failed;
    }
  }
  std::printf("%zu inputs replayed, %d failed\n", files.size(), failed);
  return failed == 0 && !files.empty() ? 0 : 1;
}
