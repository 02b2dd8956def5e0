#include "sim/kernel.h"

#include <cstdlib>

#include <systemc>

namespace strata {

void init_systemc() {
  static bool done = false;
  if (done) return;
  done = true;
  // Read by SystemC when the first module is elaborated; must be set before that.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  sc_core::sc_set_time_resolution(1, sc_core::SC_FS);
  // Errors throw (the default for SC_ERROR) so the CLI can report them in one line; infos and
  // warnings from the kernel are not results and would pollute stdout.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_LOG);
  sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_THROW);
  sc_core::sc_report_handler::set_actions(sc_core::SC_FATAL, sc_core::SC_THROW);
}

}  // namespace strata
