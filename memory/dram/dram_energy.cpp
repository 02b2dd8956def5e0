#include "memory/dram/dram_energy.h"

namespace strata {

DramEnergy DramEnergy::from(const DramSpec& spec) {
  const DramPower& p = spec.power;
  const DramTiming& t = spec.timing;
  const double devices = spec.org.devices_per_rank();
  const double tck = spec.tck_s;
  const auto cycles = [tck](int n) { return n * tck; };
  DramEnergy e;
  e.act = p.vdd * (p.idd0 * cycles(t.tRC) - (p.idd3n * cycles(t.tRAS) + p.idd2n * cycles(t.tRP))) * devices;
  e.read = p.vdd * (p.idd4r - p.idd3n) * cycles(t.tBURST) * devices;
  e.write = p.vdd * (p.idd4w - p.idd3n) * cycles(t.tBURST) * devices;
  e.refresh = p.vdd * (p.idd5b - p.idd3n) * cycles(t.tRFC) * devices;
  e.refresh_bank = e.refresh / spec.org.banks_per_rank();
  e.active_cycle = p.vdd * (p.idd3n - p.idd2n) * tck * devices;
  e.standby_power = p.vdd * p.idd2n * devices * spec.org.ranks * spec.org.controllers();
  return e;
}

}  // namespace strata
