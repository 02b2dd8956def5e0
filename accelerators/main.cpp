// The `strata` executable: the CLI (sim/app/cli.h) over every built-in kind.
#include <cstdio>
#include <new>

#include "accelerators/builtin_kinds.h"
#include "sim/app/cli.h"
#include "sim/input_error.h"
#include "sim/registry.h"

// libsystemc.so defines main() and references sc_main; Strata owns main() (so it can set up
// SystemC before anything else) and never calls sc_main.
extern "C" int sc_main(int, char*[]) { return 0; }

int main(int argc, char** argv) {
  // Memory can run out before the CLI's own handlers are in place (registering the kinds):
  // still one line and exit 2, never an abort (issue 18).
  try {
    strata::Registry registry;
    strata::register_builtin_kinds(registry);
    return strata::run_cli(argc, argv, registry);
  } catch (const std::bad_alloc&) {
    std::fputs(strata::kOutOfMemoryLine, stderr);
    return strata::kExitBadInput;
  }
}
