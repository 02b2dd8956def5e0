#include "memory/pim/pim_spec.h"

#include <fmt/format.h>

#include "sim/input_error.h"

namespace strata {

int PimSpec::units_per_rank(const DramOrganization& org) const {
  switch (placement) {
    case PimPlacement::Bank: return org.banks_per_rank();
    case PimPlacement::BankPair: return org.banks_per_rank() / 2;
    case PimPlacement::BankGroup: return org.bank_groups;
  }
  return 1;
}

const KindSpec& PimSpec::section() {
  static const KindSpec spec = [] {
    KindSpec t;
    t.name = "pim_timing";
    t.category = "section";
    t.description = "timing of the PIM commands, in cycles of the DRAM's tCK";
    t.add(param::integer("tRCD_MAC", "all-bank activate (ACTAB) to the first all-bank MAC (MACAB); 0: the DRAM's tRCD")
              .def("0")
              .range("0", "1000"));
    t.add(param::integer("tMAC",
                         "all-bank MAC to all-bank MAC in a rank: one instruction per unit per tMAC (HBM-PIM: tCCD_L; "
                         "AttAcc: 6 under its power limit, 4 without); 0: the DRAM's tCCD_L")
              .def("0")
              .range("0", "1000"));
    t.add(param::integer("tACTAB", "all-bank activate to all-bank activate in a rank; 0: the DRAM's tRC")
              .def("0")
              .range("0", "10000"));
    t.add(param::integer("tMAC_RD", "last MAC to reading its results (RDMAC): the units' pipeline and adder tree")
              .def("4")
              .range("0", "1000"));
    static const KindSpec timing = t;

    KindSpec s;
    s.name = "pim";
    s.category = "section";
    s.description = "the PIM units beside the DRAM banks: placement, width, registers, mode switching, timing, energy";
    s.add(param::choice("placement", {"bank", "bank_pair", "bank_group"},
                        "where the units sit: one per bank (AiM, AttAcc-bank), one per even/odd bank pair (HBM-PIM), "
                        "one per bank group (AttAcc-bg)")
              .def("bank_pair"));
    s.add(param::integer("lanes", "SIMD lanes per unit; lanes x 2 B must be one burst of the DRAM").def("16").range("1", "256"));
    s.add(param::choice("format", {"fp16", "bf16"}, "the lanes' number format (operands and accumulators)").def("fp16"));
    s.add(param::integer("input_registers",
                         "bursts of the input vector a unit holds at once: HBM-PIM's GRF_A (8 x 256 bit), AiM's 2 KiB "
                         "global buffer (64 bursts of 32 B)")
              .def("8")
              .range("1", "4096"));
    s.add(param::integer("accumulators", "output rows a unit accumulates at once (HBM-PIM's GRF_B: 8)")
              .def("8")
              .range("1", "1024"));
    s.add(param::integer("command_registers",
                         "instruction slots of a unit (HBM-PIM's CRF: 32); 0 for fixed-function units (AiM, AttAcc)")
              .def("0")
              .range("0", "1024"));
    s.add(param::boolean("adder_tree",
                         "the units sum their lanes into one value per output before it is read (AiM's MAC tree, "
                         "AttAcc): an RDMAC burst then carries `lanes` outputs instead of one output's lanes")
              .def("false"));
    s.add(param::choice("mode_switch", {"reserved_rows", "none"},
                        "how PIM mode is entered: reserved_rows (HBM-PIM: ACT to row 0x17ff of four banks for "
                        "all-bank mode, a write to row 0x3fff column 0 toggling all-bank-PIM mode, ACT to row "
                        "0x1fff of banks 0 and 1 back to single-bank), or none (PIM commands beside ordinary ones)")
              .def("none"));
    s.add(param::quantity("cell_read_energy", UnitFamily::EnergyPerBit,
                          "a column read or write between the cells and a unit beside the bank, without the I/O "
                          "(O'Connor et al., MICRO 2017: 0.44 pJ/bit, as AttAcc's simulator uses it)")
              .def("0.44 pJ/bit"));
    s.add(param::quantity("path_energy", UnitFamily::EnergyPerBit,
                          "the wires from the bank to a unit further out: 0 beside the bank, 1.01 pJ/bit to a "
                          "bank-group unit (O'Connor et al.)")
              .def("0 pJ/bit"));
    s.add(param::quantity("unit_area", UnitFamily::Area,
                          "one unit's area where published (0: its lanes and registers from the tech table)")
              .def("0 mm2"));
    s.slot(SlotSpec{"timing", "PIM command timing", "section", "", false, &timing});
    return s;
  }();
  return spec;
}

PimSpec PimSpec::from_config(const ValidatedNode& node, const DramSpec& dram) {
  const Params& p = node.params;
  PimSpec s;
  const std::string& placement = p.string("placement");
  s.placement = placement == "bank" ? PimPlacement::Bank : placement == "bank_pair" ? PimPlacement::BankPair
                                                                                    : PimPlacement::BankGroup;
  s.mode_switch = p.string("mode_switch") == "reserved_rows" ? PimModeSwitch::ReservedRows : PimModeSwitch::None;
  s.lanes = static_cast<int>(p.integer("lanes"));
  s.format = p.string("format");
  s.input_registers = static_cast<int>(p.integer("input_registers"));
  s.accumulators = static_cast<int>(p.integer("accumulators"));
  s.command_registers = static_cast<int>(p.integer("command_registers"));
  s.adder_tree = p.flag("adder_tree");
  s.cell_read_j_per_bit = p.quantity("cell_read_energy");
  s.path_j_per_bit = p.quantity("path_energy");
  s.unit_area_mm2 = p.quantity("unit_area");
  const Params& t = node.child("timing").params;
  const DramTiming& d = dram.timing;
  const auto or_dram = [&](const char* key, int fallback) {
    const auto v = static_cast<int>(t.integer(key));
    return v > 0 ? v : fallback;
  };
  s.timing.tRCD_MAC = or_dram("tRCD_MAC", d.tRCD);
  s.timing.tMAC = or_dram("tMAC", d.tCCD_L);
  s.timing.tACTAB = or_dram("tACTAB", d.tRC);
  s.timing.tMAC_RD = static_cast<int>(t.integer("tMAC_RD"));

  const DramOrganization& org = dram.org;
  if (s.lanes * s.element_bytes() != static_cast<int>(org.access_bytes()))
    throw InputError(p.where("lanes"), "lanes",
                     fmt::format("{} lanes of {} B are {} B, but one burst of the DRAM is {} B: a unit takes one "
                                 "burst per instruction",
                                 s.lanes, s.element_bytes(), s.lanes * s.element_bytes(), org.access_bytes()));
  if (s.placement == PimPlacement::BankPair && org.banks_per_group % 2 != 0)
    throw InputError(p.where("placement"), "placement",
                     fmt::format("bank_pair needs an even number of banks per bank group; the DRAM has {}",
                                 org.banks_per_group));
  if (s.mode_switch == PimModeSwitch::ReservedRows && (org.rows <= 0x3fff || org.bank_groups < 3 || org.banks_per_group < 2))
    throw InputError(p.where("mode_switch"), "mode_switch",
                     fmt::format("reserved_rows uses rows 0x17ff, 0x1fff and 0x3fff of banks 0 and 1 in bank groups 0 "
                                 "and 2; the DRAM has {} rows and {} bank groups of {} banks",
                                 org.rows, org.bank_groups, org.banks_per_group));
  if (s.mode_switch == PimModeSwitch::ReservedRows && s.command_registers < 6)
    throw InputError(p.where("command_registers"), "command_registers",
                     "reserved_rows (HBM-PIM) runs its kernels from the command registers: the GEMV microkernel "
                     "needs 6 slots");
  return s;
}

}  // namespace strata
