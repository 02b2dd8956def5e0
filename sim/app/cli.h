// The `strata` command line. Subcommands:
//   strata run EXPERIMENT.yaml [-o DIR] [--set key=value ...] [--timeline] [--progress|--no-progress] [-q]
//   strata run IMPORTER-OPTIONS [-o DIR]  (a peer's files, e.g. --scalesim-config/--scalesim-topology)
//   strata sweep SWEEP.yaml [-o DIR] [--executor local|slurm] [--jobs N] [--resume] [--dry-run] ...
//   strata collect DIR
//   strata plot KIND DIR [options]
//   strata config EXPERIMENT.yaml [--set key=value ...] [--hash]
//   strata list [KIND]
//   strata report DIR [--format table|csv|json]
//   strata workload info EXPERIMENT.yaml, strata trace export EXPERIMENT.yaml -o FILE
//   strata --version
// plus the subcommands and `run` importers registered with the kinds (sim/cli_extension.h):
// `rtl-check` from rtl/, SCALE-Sim's files from accelerators/npu/.
// Exit codes: 0 success, 1 internal error, 2 bad input (one line naming file, line and key),
// 3 a sweep finished with failed points, 130 / 143 interrupted by SIGINT / SIGTERM (sim/interrupt.h).
// A failed write (a full disk) is 1 too, on one line.
#pragma once

namespace strata {

class Registry;

int run_cli(int argc, char** argv, const Registry& registry);

}  // namespace strata
