// The IDD energy model (Micron TN-41-01, as DRAMsim3 and DRAMPower's core use it): energy per
// command from the current above standby it draws for as long as it lasts, plus background
// power by state. Per rank, times devices per rank; currents in A, VDD in V, cycles x tCK.
#pragma once

#include "memory/dram/dram_spec.h"

namespace strata {

struct DramEnergy {
  double act;           // VDD (IDD0 tRC - (IDD3N tRAS + IDD2N tRP)): one activate-precharge pair
  double read;          // VDD (IDD4R - IDD3N) tBURST
  double write;         // VDD (IDD4W - IDD3N) tBURST
  double refresh;       // VDD (IDD5B - IDD3N) tRFC
  double refresh_bank;  // a per-bank refresh: the all-bank refresh energy over the banks
  double active_cycle;  // VDD (IDD3N - IDD2N) per rank-cycle with a bank open
  double standby_power;  // VDD IDD2N of every rank of every channel (W)

  static DramEnergy from(const DramSpec& spec);
};

}  // namespace strata
