// The processing-in-memory side of a PIM DRAM, read from the `pim` section of a `pim` hardware
// node: where the units sit (per bank, per bank pair, per bank group), how wide they are, their
// register files, how the device switches into PIM mode, the timing of the PIM commands and the
// energy of the path from the cells to a unit. The DRAM side (standard, organisation, timing,
// IDD currents) is an ordinary `dram` node (memory/dram/dram_spec.h); a PIM device is that DRAM
// with the commands of pim_protocol.h added. Presets: configs/hardware/pim/.
#pragma once

#include <string>

#include "memory/dram/dram_spec.h"
#include "sim/schema.h"

namespace strata {

enum class PimPlacement { Bank, BankPair, BankGroup };
// How the device enters and leaves PIM mode: Samsung HBM-PIM's activations and writes to
// reserved rows (single-bank -> all-bank -> all-bank-PIM and back), or no modes at all (AiM,
// AttAcc and PIM-GPT issue their PIM commands beside ordinary ones).
enum class PimModeSwitch { ReservedRows, None };

struct PimTiming {
  int tRCD_MAC = 0;  // all-bank activate to the first all-bank MAC (cycles)
  int tMAC = 0;      // all-bank MAC to all-bank MAC in the rank: the units' issue rate
  int tACTAB = 0;    // all-bank activate to all-bank activate (power delivery of 16 activations)
  int tMAC_RD = 0;   // last MAC to reading its results out (the units' pipeline and adder tree)
};

struct PimSpec {
  PimPlacement placement = PimPlacement::BankPair;
  PimModeSwitch mode_switch = PimModeSwitch::None;
  int lanes = 16;              // SIMD lanes per unit, one burst element each
  std::string format = "fp16";  // the lanes' number format
  int input_registers = 8;     // bursts of the input vector a unit holds (HBM-PIM's GRF_A; AiM's global buffer)
  int accumulators = 8;        // output registers per unit (HBM-PIM's GRF_B: one output row each)
  int command_registers = 32;  // instruction slots (HBM-PIM's CRF); 0: fixed-function units
  bool adder_tree = false;     // lanes summed into one value per output before it is read (AiM, AttAcc)
  PimTiming timing;
  double cell_read_j_per_bit = 0;  // a column read delivered to a unit beside the bank (no I/O)
  double path_j_per_bit = 0;       // the wires from the bank to a unit further out (bank-group units)
  double unit_area_mm2 = 0;        // one unit's logic and registers, as published (0: from the tech table)

  // Units in one rank of one (pseudo-)channel.
  int units_per_rank(const DramOrganization& org) const;
  // Banks one unit reads from.
  int banks_per_unit(const DramOrganization& org) const { return org.banks_per_rank() / units_per_rank(org); }
  // Elements of the input vector one unit holds at once.
  int input_elements(const DramOrganization& org) const {
    return input_registers * static_cast<int>(org.access_bytes()) / element_bytes();
  }
  int element_bytes() const { return 2; }  // FP16 / BF16
  // RDMAC bursts that read `outputs` accumulators of a rank: one burst each, or with the adder
  // tree one value each, `lanes` to a burst.
  int result_bursts(int outputs) const { return adder_tree ? (outputs + lanes - 1) / lanes : outputs; }

  static const KindSpec& section();
  // Reads the `pim` section and checks it against the DRAM it sits in (lanes x element = one
  // burst; units that divide the banks); InputError naming the key otherwise.
  static PimSpec from_config(const ValidatedNode& node, const DramSpec& dram);
};

}  // namespace strata
