// The `strata` command line. Subcommands:
//   strata run EXPERIMENT.yaml [-o DIR] [--set key=value ...] [--timeline] [--progress|--no-progress] [-q]
//   strata run --scalesim-config FILE.cfg --scalesim-topology FILE.csv [-o DIR]  (SCALE-Sim's files)
//   strata sweep SWEEP.yaml [-o DIR] [--executor local|slurm] [--jobs N] [--resume] [--dry-run] ...
//   strata collect DIR
//   strata rtl-check RTLCHECK.yaml [-o DIR] [--backend systemc|cpp|both]
//   strata plot KIND DIR [options]
//   strata config EXPERIMENT.yaml [--set key=value ...] [--hash]
//   strata list [KIND]
//   strata --version
// Exit codes: 0 success, 1 internal error, 2 bad input (one line naming file, line and key),
// 3 a sweep finished with failed points, 130 / 143 interrupted by SIGINT / SIGTERM (sim/interrupt.h).
// A failed write (a full disk) is 1 too, on one line.
#pragma once

#include <functional>
#include <string>

namespace strata {

class Registry;

// Front ends the CLI reaches through functions, because they live above sim/ (accelerators/).
struct CliHooks {
  // SCALE-Sim files -> experiment YAML text; and SCALE-Sim's reports written into a directory.
  std::function<std::string(const std::string& config, const std::string& topology)> scalesim_experiment;
  std::function<void(const std::string& config, const std::string& topology, const std::string& dir)> scalesim_reports;
  // `strata rtl-check` (rtl/rtl_check.h): returns the exit code.
  std::function<int(const std::string& spec, const std::string& output, const std::string& backend)> rtl_check;
};

int run_cli(int argc, char** argv, const Registry& registry, const CliHooks& hooks = {});

}  // namespace strata
