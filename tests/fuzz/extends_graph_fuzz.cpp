// Fuzzes `extends:` graphs and YAML aliases: the input is up to 12 files, separated by lines
// "--- fN.yaml", written as f0.yaml ... f11.yaml (text before the first separator is f0.yaml),
// and load_config("f0.yaml") resolves them. Files name each other in `extends:` (diamonds,
// cycles, lists, nested mappings), and any file may hold anchors and aliases (self-references,
// exponential nesting). Resolution must end in a result or an InputError, in bounded time and
// memory (issue 18: each file is resolved once; expansions are bounded; cycles are errors).
#include <string>
#include <string_view>

#include "fuzz_util.h"
#include "sim/config_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string files[12];
  int current = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (line.rfind("--- f", 0) == 0 && line.size() >= 6 && line[5] >= '0' && line[5] <= '9') {
      int n = line[5] - '0';
      if (line.size() >= 7 && line[6] >= '0' && line[6] <= '9') n = n * 10 + (line[6] - '0');
      current = n % 12;
      files[current].clear();
    } else {
      files[current].append(line);
      files[current].push_back('\n');
    }
    start = end + 1;
  }
  for (int i = 0; i < 12; ++i) strata_fuzz::write_file("f" + std::to_string(i) + ".yaml", files[i]);
  FUZZ_EXPECT_INPUT_ERROR(strata::load_config(strata_fuzz::scratch_dir() + "/f0.yaml"));
  return 0;
}
