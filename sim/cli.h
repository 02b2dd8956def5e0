// The `strata` command line. Subcommands:
//   strata run EXPERIMENT.yaml [-o DIR] [--set key=value ...] [--timeline] [--progress|--no-progress] [-q]
//   strata config EXPERIMENT.yaml [--set key=value ...] [--hash]
//   strata list [KIND]
//   strata --version
// Exit codes: 0 success, 1 internal error, 2 bad input (one line naming file, line and key),
// 130 interrupted (SIGINT).
#pragma once

namespace strata {

class Registry;

int run_cli(int argc, char** argv, const Registry& registry);

}  // namespace strata
