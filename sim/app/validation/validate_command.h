// `strata validate [--suite NAME[,NAME]|all] [--quick] [-o DIR] [-j N] [--checks DIR] [--no-plots]`:
// runs the reference checks of configs/validation/ (validation_catalog.h) as real experiments,
// each in its own `strata run` process (SystemC elaborates once per process), `-j` at a time,
// and writes DIR/validation.csv, validation.json, report.md and plots/<suite>-{scatter,error}
// .{png,pdf} (scripts/plot_validation.py). The runs stay in DIR/runs/<suite>/<check>/.
// Exit code 0 when every asserted check is within its tolerance, 3 when some are not or their
// run failed (listed on stderr), 2 for bad input (every input is checked before DIR is touched;
// nothing written), 1 when a write failed, 130 / 143 when interrupted. The new report (its runs
// too) is staged in DIR/.staging-<pid>/ and replaces an older one only once complete
// (ResultDir::commit_replacing), so a failure or an interrupt leaves the older one as it was; an
// interrupt is passed on to the running runs, which are waited for.
#pragma once

#include <string>
#include <vector>

namespace strata {

class Registry;

struct ValidateOptions {
  std::vector<std::string> suites;  // empty or "all": every suite
  bool quick = false;
  std::string output = "results/validation";
  int jobs = 0;            // 0: the number of cores
  std::string checks_dir;  // default: configs/validation of the source tree
  bool plots = true;
  std::string command;  // for the report: the command line as typed
};

// Exit code 3: some checks failed.
constexpr int kValidationFailedExitCode = 3;

int run_validate(const ValidateOptions& options, const Registry& registry);

}  // namespace strata
