// The timing parameters of a DRAM standard, in cycles of the command clock (tCK): the one list
// the `timing` section's schema (dram_spec.cpp), the protocol's rules (dram_protocol.cpp) and the
// checkers read.
#pragma once

namespace strata {

// X-macro: the one list of timing parameters, their schema descriptions and their fields.
#define STRATA_DRAM_TIMINGS(X)                                                                   \
  X(CL, "read latency: RD command to first data")                                                \
  X(CWL, "write latency: WR command to first data")                                              \
  X(tBURST, "data-bus cycles of one burst (burst_length / 2 for DDR, 2 for LPDDR5 BL16 at 4:1)") \
  X(tRCD, "ACT to RD in the same bank")                                                          \
  X(tRCDW, "ACT to WR in the same bank (HBM's tRCDWR; tRCD elsewhere)")                          \
  X(tRP, "PRE to ACT in the same bank")                                                          \
  X(tRPab, "all-bank precharge (PREA) to ACT or REF in the rank")                                \
  X(tRAS, "ACT to PRE in the same bank")                                                         \
  X(tRC, "ACT to ACT in the same bank")                                                          \
  X(tRRD_S, "ACT to ACT in different bank groups of a rank")                                     \
  X(tRRD_L, "ACT to ACT in the same bank group")                                                 \
  X(tFAW, "window in which a rank may issue at most four ACTs")                                  \
  X(tCCD_S, "column command to column command in different bank groups")                         \
  X(tCCD_L, "RD to RD (and RD/WR to RD) in the same bank group")                                 \
  X(tCCD_L_WR, "WR to WR in the same bank group (DDR5's tCCD_L_WR; tCCD_L elsewhere)")           \
  X(tWTR_S, "end of write data to RD in a different bank group")                                 \
  X(tWTR_L, "end of write data to RD in the same bank group")                                    \
  X(tWR, "write recovery: end of write data to PRE in the same bank")                            \
  X(tRTP, "RD to PRE in the same bank")                                                          \
  X(tRTRS, "rank-to-rank switch: idle data-bus cycles between bursts of different ranks")        \
  X(tPPD, "PRE to PRE in the same rank (LPDDR5; 0 where the standard has none)")                 \
  X(tREFI, "average interval between all-bank refreshes of a rank")                              \
  X(tRFC, "all-bank refresh (REF) to any ACT or REF in the rank")                                \
  X(tREFIpb, "interval between per-bank refreshes of a rank (0: the standard has none)")         \
  X(tRFCpb, "per-bank refresh to ACT in that bank")                                              \
  X(tRREFD, "per-bank refresh to per-bank refresh of another bank in the rank")

struct DramTiming {
#define STRATA_DRAM_TIMING_FIELD(name, description) int name = 0;
  STRATA_DRAM_TIMINGS(STRATA_DRAM_TIMING_FIELD)
#undef STRATA_DRAM_TIMING_FIELD
};

}  // namespace strata
