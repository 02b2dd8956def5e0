// DRAM commands as the controller issues them and the protocol checker verifies them.
#pragma once

#include <cstdint>

namespace strata {

enum class DramCmd : std::uint8_t { ACT, PRE, PREA, RD, WR, REF, REFpb };
inline constexpr int kDramCmds = 7;

inline const char* command_name(DramCmd c) {
  static const char* names[kDramCmds] = {"ACT", "PRE", "PREA", "RD", "WR", "REF", "REFpb"};
  return names[static_cast<int>(c)];
}
inline bool is_column(DramCmd c) { return c == DramCmd::RD || c == DramCmd::WR; }

struct DramCommand {
  DramCmd cmd = DramCmd::ACT;
  std::uint64_t cycle = 0;
  int rank = 0;
  int bank_group = 0;  // ACT, PRE, RD, WR, REFpb
  int bank = 0;        // within the bank group
  std::uint32_t row = 0;  // ACT, RD, WR
};

}  // namespace strata
