// Helpers shared by the tests: scratch directories and files, and running the strata binary.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/wait.h>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/validation/validation_catalog.h"
#include "sim/input_error.h"

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

// Sets an environment variable (inherited by the strata processes a test starts) until the
// object goes away, then restores the old value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() { had_ ? ::setenv(name_.c_str(), old_.c_str(), 1) : ::unsetenv(name_.c_str()); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_, old_;
  bool had_ = false;
};

// The message of the InputError `f` throws, "no error" if none (other exceptions propagate).
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline nlohmann::json json_file(const std::string& path) { return nlohmann::json::parse(read_file(path)); }

inline std::string source_path(const std::string& relative) { return std::string(STRATA_SOURCE_DIR) + "/" + relative; }

// The first shipped example, used by the CLI tests.
inline const std::string kQuickstart = source_path("configs/experiments/quickstart.yaml");

struct CommandResult {
  int code;
  std::string out, err;
};

// `err` without the three-line notice AddressSanitizer prints (in scripts/sanitize's build) when
// an exception is thrown on a SystemC coroutine stack, which it cannot see (google/sanitizers#189).
inline std::string without_asan_notice(std::string err) {
  const size_t at = err.find("WARNING: ASan is ignoring requested __asan_handle_no_return");
  if (at == std::string::npos) return err;
  const size_t line_start = err.rfind('\n', at);
  const size_t begin = line_start == std::string::npos ? 0 : line_start + 1;
  size_t end = begin;
  for (int line = 0; line < 3; ++line) {
    const size_t newline = err.find('\n', end);
    if (newline == std::string::npos) {
      end = err.size();
      break;
    }
    end = newline + 1;
  }
  return err.erase(begin, end - begin);
}

// Runs `strata <args>` in `cwd` (default: the source tree) and captures its output.
inline CommandResult run_strata(const std::string& args, const std::string& cwd = STRATA_SOURCE_DIR) {
  TempDir io;
  const std::string cmd = "cd '" + cwd + "' && '" + std::string(STRATA_BINARY) + "' " + args + " >'" + io.file("out") +
                          "' 2>'" + io.file("err") + "' </dev/null";
  const int status = std::system(cmd.c_str());
  return CommandResult{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(io.file("out")),
                       without_asan_notice(read_file(io.file("err")))};
}

// A reference check of configs/validation/ (its figure and tolerance live only there: the test
// and `strata validate` read the same file).
// The `# smoke:` settings of a shipped example (a path under the source tree; "" when it has none).
inline std::string smoke_settings(const std::string& experiment) {
  std::ifstream in(source_path(experiment));
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("# smoke: ", 0) == 0) return line.substr(9);
  return "";
}

// A finished run's summary.json and stats.json: get(key) a summary figure (-1 when it has none),
// hw(a, b) the value of statistic hardware.<a>.<b>.
struct ExampleRun {
  nlohmann::json summary, stats;
  double get(const char* key) const { return summary.value(key, -1.0); }
  double hw(const std::string& a, const std::string& b) const { return stats["hardware"][a][b]["value"].get<double>(); }
};

// Runs shipped example `experiment` at its `# smoke:` settings and `sets`; a failure is reported
// and gives empty results.
inline ExampleRun run_example(const std::string& experiment, const std::string& sets) {
  TempDir dir;
  const CommandResult r = run_strata("run -q " + experiment + " " + smoke_settings(experiment) + " " + sets + " -o '" +
                                     dir.file("out") + "'");
  EXPECT_EQ(r.code, 0) << experiment << " " << sets << ": " << r.err;
  if (r.code != 0) return {nlohmann::json::object(), nlohmann::json::object()};
  return ExampleRun{json_file(dir.file("out/summary.json")), json_file(dir.file("out/stats.json"))};
}

// The config hash `strata config ARGS` prints ("" when it fails).
inline std::string config_hash_of(const std::string& args) {
  const CommandResult r = run_strata("config " + args);
  EXPECT_EQ(r.code, 0) << r.err;
  const size_t at = r.out.find("# config hash ");
  return at == std::string::npos ? "" : r.out.substr(at + 14, 32);
}

inline const ValidationCheck& validation_check(const std::string& suite, const std::string& id) {
  static const std::vector<ValidationSuite> suites = load_validation_suites(source_path("configs/validation"));
  return find_validation_check(suites, suite, id);
}

// Runs one of a check's runs through the binary with the command line `strata validate` gives
// it, writing into `out`; the run's summary and stats, empty when it failed.
inline ValidationRunResult run_validation(const ValidationRun& run, const std::string& out) {
  std::string args;
  for (const std::string& a : run.args(out)) args += " '" + a + "'";
  const CommandResult r = run_strata(args);
  if (r.code != 0) {
    ADD_FAILURE() << "strata" << args << ": " << r.err;
    return ValidationRunResult{out, nlohmann::json::object(), nlohmann::json::object()};
  }
  return read_validation_run(out);
}

// `model` is within the check's tolerance of its reference.
#define EXPECT_WITHIN_VALIDATION(check, model)                                                               \
  EXPECT_TRUE((check).within(model)) << (check).suite << "/" << (check).id << ": " << (model) << " against " \
                                     << (check).reference << " " << (check).unit << " (tolerance -"          \
                                     << 100 * (check).below << "% / +" << 100 * (check).above << "%)"

// What a failed or interrupted write may never leave behind: staging directories, a validation
// report's set-aside parts, temporary files.
inline std::vector<std::string> leftovers(const std::string& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(".staging-", 0) == 0 || name.rfind(".old-", 0) == 0 || name.find(".tmp.") != std::string::npos)
      found.push_back(std::filesystem::relative(it->path(), dir).string());
  }
  return found;
}

}  // namespace strata::testing
