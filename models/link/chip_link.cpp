#include "models/link/chip_link.h"

#include "models/link/link_cost.h"

namespace strata {

KindSpec ChipLink::spec() {
  KindSpec s;
  s.name = "chip_link";
  s.description = "one direction of a chip-to-chip or die-to-die link: bandwidth, latency, energy per bit";
  s.add(param::quantity("bandwidth", UnitFamily::Bandwidth, "data bandwidth in one direction")
            .def("50 GB/s")
            .range("1 MB/s", "100 TB/s"));
  s.add(param::quantity("latency", UnitFamily::Time,
                        "from a transfer's first byte leaving to it arriving (SerDes, wire, receiving port)")
            .def("500 ns")
            .range("0 s", "1 ms"));
  s.add(param::string("packaging",
                      "the technology table's `links:` row for energy per bit and area per GB/s (serdes, nvlink_c2c, "
                      "ucie_standard, ucie_advanced, silicon_interposer, organic_substrate, hybrid_bonding)")
            .def("serdes"));
  s.provides(kChipLinkRole);
  return s;
}

ChipLink::ChipLink(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : Component(name, cfg, ctx),
      bandwidth_(params().quantity("bandwidth")),
      latency_(params().quantity("latency")),
      bytes_(counter("bytes", "B", "bytes carried")),
      transfers_(counter("transfers", "transfers", "transfers carried")),
      busy_(scalar("busy", "s", "time the link carried data")),
      bit_energy_(energy_event("bit", row().energy_j, "bits carried (technology table, links row)")) {
  const UnitCost cost = row();
  add_area("phy", cost.area_mm2 * bandwidth_ * 1e-9, cost.leakage_w);
}

UnitCost ChipLink::row() const { return tech_row("packaging", link_cost); }

void ChipLink::carried(std::uint64_t bytes, double seconds) {
  bytes_.add(bytes);
  transfers_.add();
  busy_.set(busy_.value() + seconds);
  bit_energy_.add(bytes * 8);
}

}  // namespace strata
