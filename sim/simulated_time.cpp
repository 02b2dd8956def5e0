#include "sim/simulated_time.h"

#include <fmt/format.h>

#include "sim/component.h"

namespace strata {

bool reachable_time(const Component& c, double seconds) {
  if (seconds <= kMaxSimulatedSeconds) return true;
  c.context().fail(InputError(c.config().loc, c.config().path,
                              fmt::format("simulated time would reach {:.4g} s, past the {} s that SystemC's 64-bit "
                                          "femtosecond clock can represent; shorten the workload or the timing",
                                          seconds, kMaxSimulatedSeconds)));
  return false;
}

}  // namespace strata
