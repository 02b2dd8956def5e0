// Helpers shared by the tests: scratch directories and files, and running the strata binary.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/wait.h>
#include <string>

// A GoogleTest check that `haystack` contains `needle`, printing the haystack when it does not.
#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

namespace strata::testing {

// A fresh directory under /tmp, removed with everything in it when the object goes away.
class TempDir {
 public:
  TempDir() {
    // mkdtemp replaces the trailing six 'X's with a unique suffix.
    std::string tmpl = (std::filesystem::temp_directory_path() / ("strata-test-" + std::string(6, 'X'))).string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  // Writes `content` to `name` (creating folders) and returns the full path.
  std::string write(const std::string& name, const std::string& content) const {
    const auto p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << content;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string source_path(const std::string& relative) { return std::string(STRATA_SOURCE_DIR) + "/" + relative; }

struct CommandResult {
  int code;
  std::string out, err;
};

// Runs `strata <args>` in `cwd` (default: the source tree) and captures its output.
inline CommandResult run_strata(const std::string& args, const std::string& cwd = STRATA_SOURCE_DIR) {
  TempDir io;
  const std::string cmd = "cd '" + cwd + "' && '" + std::string(STRATA_BINARY) + "' " + args + " >'" + io.file("out") +
                          "' 2>'" + io.file("err") + "' </dev/null";
  const int status = std::system(cmd.c_str());
  return CommandResult{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(io.file("out")), read_file(io.file("err"))};
}

}  // namespace strata::testing
