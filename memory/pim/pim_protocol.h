// The PIM commands a PIM DRAM adds to its standard's command set (dram_protocol.h), the timing
// rules that bind them, and the mode rules of devices that switch modes. The controller's
// timing table and the protocol checker take them as data: nothing in memory/dram names them.
//
//   ACTAB  activates one row in every bank of the rank (AiM's ACT16, AttAcc's ACTAB, HBM-PIM's
//          ACT in all-bank mode)
//   MACAB  every unit reads one burst of its bank's open row and runs its instruction on it (MAC,
//          MUL, ADD, FILL: HBM-PIM's column read in all-bank-PIM mode, AiM's MAC16, AttAcc's MACAB)
//   MOVAB  every unit writes one register burst into its bank's open row (HBM-PIM's MOV, AiM's
//          WRMAC16)
//   WRGB   the host writes one burst into every unit at once: the input vector's registers or
//          global buffer, command and scalar registers, HBM-PIM's mode bit (column = register)
//   RDMAC  the host reads one burst of the units' result registers (AiM's RD_MAC)
// Ordinary PREA closes the rows of all banks; REF and the host's own commands are unchanged.
#pragma once

#include <functional>
#include <string>

#include "memory/dram/dram_protocol.h"
#include "memory/pim/pim_spec.h"

namespace strata {

struct PimCommands {
  DramCmd ACTAB, MACAB, MOVAB, WRGB, RDMAC;
  // The ids in `protocol`, which must hold the PIM commands (its spec went through make_pim_dram).
  static PimCommands in(const DramProtocol& protocol);
};

// HBM-PIM's reserved rows and register columns (PIMSimulator: src/tests/PIMKernel.cpp, src/PIMRank.cpp).
namespace hbm_pim {
inline constexpr std::uint32_t kEnterAllBankRow = 0x17ff;  // ACT here in banks 0, 1 of bank groups 0, 2
inline constexpr std::uint32_t kExitAllBankRow = 0x1fff;   // ACT here in banks 0, 1 of bank group 0
inline constexpr std::uint32_t kRegisterRow = 0x3fff;
inline constexpr std::uint32_t kModeColumn = 0x00;     // WRGB here toggles all-bank-PIM mode
inline constexpr std::uint32_t kSrfColumn = 0x01;
inline constexpr std::uint32_t kCrfColumn = 0x04;      // 0x04-0x07: 4 bursts of 8 instructions
inline constexpr std::uint32_t kGrfAColumn = 0x08;     // 0x08-0x0f
inline constexpr std::uint32_t kGrfBColumn = 0x18;     // 0x18-0x1f
}  // namespace hbm_pim

// `dram` made a PIM device: its protocol extended with the PIM commands and rules, and (for
// mode-switching devices) its protocol checkers given the mode rules.
DramSpec make_pim_dram(DramSpec dram, const PimSpec& pim);

}  // namespace strata
