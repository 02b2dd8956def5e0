#include "memory/flash/nand_cost.h"

namespace strata {

TechSectionSpec nand_cost_section() {
  TechSectionSpec s;
  s.key = "nand";
  s.required = true;
  s.read = [](const TechFileReader& r, const ConfigNode& n, const TechSection* inherited) {
    auto f = inherit_section<NandCost>(inherited);
    r.check_keys(n, "nand", {"page_size", "read_energy", "program_energy", "erase_energy", "io_energy", "source"});
    r.read_q(n, "nand", "page_size", UnitFamily::Size, f->page_bytes);
    r.read_q(n, "nand", "read_energy", UnitFamily::Energy, f->read_j);
    r.read_q(n, "nand", "program_energy", UnitFamily::Energy, f->program_j);
    r.read_q(n, "nand", "erase_energy", UnitFamily::Energy, f->erase_j);
    r.read_q(n, "nand", "io_energy", UnitFamily::EnergyPerBit, f->io_j_per_bit);
    r.read_source(n, "nand", f->source);
    return std::shared_ptr<const TechSection>(std::move(f));
  };
  return s;
}

}  // namespace strata
