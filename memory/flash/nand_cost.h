// The technology table's `nand` section, owned by the flash models: page size, array read,
// program and erase energy per page or block, and I/O energy per bit. A memory figure: a
// derived node inherits it unscaled. Registered with the kinds by memory/register_kinds.cpp;
// every table has one.
#pragma once

#include <string>

#include "sim/tech/tech_table.h"

namespace strata {

struct NandCost : TechSection {
  double page_bytes = 0, read_j = 0, program_j = 0, erase_j = 0, io_j_per_bit = 0;
  std::string source;
};

TechSectionSpec nand_cost_section();
inline const NandCost& nand_cost(const TechTable& table) { return table.section<NandCost>("nand"); }

}  // namespace strata
