// DRAM commands as the controller issues them and the protocol checker verifies them. The
// standard commands have fixed ids; a device adds its own after them (dram_protocol.h), so a
// command is an id into the device's DramProtocol, which names it and says what it does.
#pragma once

#include <cstdint>

namespace strata {

enum class DramCmd : std::uint8_t { ACT, PRE, PREA, RD, WR, REF, REFpb };
inline constexpr int kStandardDramCmds = 7;

struct DramCommand {
  DramCmd cmd = DramCmd::ACT;
  std::uint64_t cycle = 0;
  int rank = 0;
  int bank_group = 0;  // bank-scoped commands
  int bank = 0;        // within the bank group
  std::uint32_t row = 0;  // commands that open or use a row
  // The column of a column command where it matters to the device (a PIM device's register
  // addresses and mode writes); the standard rules never look at it.
  std::uint32_t column = 0;
};

}  // namespace strata
