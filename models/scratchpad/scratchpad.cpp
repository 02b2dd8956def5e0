#include "models/scratchpad/scratchpad.h"

#include <algorithm>

#include <fmt/format.h>

namespace strata {

KindSpec Scratchpad::spec() {
  KindSpec s;
  s.name = "scratchpad";
  s.description = "banked, software-managed on-chip SRAM (tiles and their double buffers)";
  s.with_clock();
  s.add(param::quantity("capacity", UnitFamily::Size, "bytes the scratchpad holds").def("4 MiB").range("1 KiB", "16 GiB"));
  s.add(param::integer("banks", "independent banks; consecutive bank words go to consecutive banks").def("32").range("1", "4096"));
  s.add(param::quantity("bank_width", UnitFamily::Size, "bytes one bank reads or writes per cycle")
            .def("32 B")
            .range("1 B", "4 KiB"));
  s.add(param::integer("ports", "independent access ports (a DMA fill and a compute read proceed in parallel)")
            .def("2")
            .range("1", "16"));
  s.provides(kScratchpadRole);
  return s;
}

Scratchpad::Scratchpad(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : Component(name, cfg, ctx),
      bytes_read_(counter("bytes_read", "B", "bytes read")),
      bytes_written_(counter("bytes_written", "B", "bytes written")),
      peak_bytes_(scalar("peak_bytes", "B", "largest footprint of the tiles in flight (capacity planning)")) {
  layout_.capacity_bytes = static_cast<std::uint64_t>(params().quantity("capacity"));
  layout_.banks = params().integer("banks");
  layout_.bank_width_bytes = static_cast<std::int64_t>(params().quantity("bank_width"));
  layout_.ports = params().integer("ports");
  if (layout_.capacity_bytes % static_cast<std::uint64_t>(layout_.banks * layout_.bank_width_bytes) != 0)
    throw InputError(params().where("capacity"), config().path + ".capacity",
                     fmt::format("{} B is not a whole number of rows of {} banks x {} B", layout_.capacity_bytes,
                                 layout_.banks, layout_.bank_width_bytes));
  const SramCost sram = tech().sram(static_cast<double>(layout_.capacity_bytes),
                                    static_cast<int>(layout_.bank_width_bytes * 8), static_cast<int>(layout_.banks),
                                    params().where("capacity"), config().path + ".capacity");
  read_energy_ = &energy_event("read", sram.read_j, fmt::format("bank words ({} B) read", layout_.bank_width_bytes));
  write_energy_ = &energy_event("write", sram.write_j, fmt::format("bank words ({} B) written", layout_.bank_width_bytes));
  // Each port beyond the first adds its own decoders and sense amplifiers: ~ +15% area per port
  // (CACTI's multi-ported arrays grow faster; this is a banked single-port design with port
  // arbitration).
  const double port_factor = 1.0 + 0.15 * static_cast<double>(layout_.ports - 1);
  add_area("sram", sram.area_mm2 * port_factor, sram.leakage_w * port_factor);
}

std::uint64_t Scratchpad::count(const ScratchpadAccess& a, bool write) {
  const std::uint64_t bytes = a.bank_accesses * static_cast<std::uint64_t>(layout_.bank_width_bytes);
  (write ? bytes_written_ : bytes_read_).add(bytes);
  (write ? write_energy_ : read_energy_)->add(a.bank_accesses);
  return a.cycles;
}

void Scratchpad::occupy(std::uint64_t bytes) { peak_bytes_.set(std::max(peak_bytes_.value(), static_cast<double>(bytes))); }

double Scratchpad::peak_dynamic_j_per_cycle() const {
  return static_cast<double>(layout_.ports * layout_.banks) *
         std::max(read_energy_->joules_per_event(), write_energy_->joules_per_event());
}

}  // namespace strata
