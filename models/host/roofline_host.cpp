#include "models/host/roofline_host.h"

#include <algorithm>

#include "sim/registry.h"

namespace strata {

namespace {

class RooflineHost final : public CompanionHost {
 public:
  explicit RooflineHost(const Params& p)
      : peak_flops_(p.real("peak_tflops") * 1e12),
        bandwidth_(p.quantity("bandwidth")),
        link_bandwidth_(p.quantity("link_bandwidth")),
        launch_s_(p.quantity("launch_latency")) {
    costs_.flop_j = p.quantity("flop_energy");
    costs_.memory_j_per_bit = p.quantity("memory_energy");
    costs_.link_j_per_bit = p.quantity("link_energy");
    costs_.area_mm2 = p.quantity("area");
    costs_.idle_w = p.quantity("idle_power");
  }
  double operator_seconds(double flops, double memory_bytes) const override {
    const double compute = peak_flops_ > 0 ? flops / peak_flops_ : 0;
    const double memory = memory_bytes / bandwidth_;  // positive: the schema refuses 0, once read as infinite
    return launch_s_ + std::max(compute, memory);
  }
  double peak_flops() const override { return peak_flops_; }
  double link_bandwidth() const override { return link_bandwidth_; }
  const HostCosts& costs() const override { return costs_; }

 private:
  double peak_flops_, bandwidth_, link_bandwidth_, launch_s_;
  HostCosts costs_;
};

}  // namespace

KindSpec roofline_host_spec() {
  KindSpec s;
  s.name = "roofline_host";
  s.category = kPartCategory;
  s.description = "a companion host as a roofline: launch cost, then FLOPs at its peak or bytes at its bandwidth";
  s.add(param::real("peak_tflops", "its arithmetic peak in TFLOP/s (PIM-GPT's ASIC, AttAcc's GPU)").range("0.000001", "1e6"));
  s.add(param::quantity("bandwidth", UnitFamily::Bandwidth,
                        "its memory bandwidth for the operators it runs (weights and activations it reads and "
                        "writes); a host on the device's DRAM bus reads through the same channels"));
  s.add(param::quantity("link_bandwidth", UnitFamily::Bandwidth,
                        "the link between host and device where they are apart (AttAcc: NVLink3 600 GB/s); 0: the "
                        "host sits on the device's DRAM bus (a PIM's: its commands' own bursts carry the data)")
            .def("0 GB/s")
            .at_least("0 GB/s"));  // 0 means something here (param::quantity: a rate is otherwise positive)
  s.add(param::quantity("launch_latency", UnitFamily::Time, "fixed cost of each operator the host runs").def("0 s"));
  s.add(param::quantity("flop_energy", UnitFamily::Energy, "energy per FLOP of the host's arithmetic").def("0.5 pJ"));
  s.add(param::quantity("memory_energy", UnitFamily::EnergyPerBit,
                        "energy per bit the host moves through its memory (AttAcc charges the GPU 28.72 pJ/B = 3.59 "
                        "pJ/bit for HBM across the interposer)")
            .def("3.59 pJ/bit"));
  s.add(param::quantity("link_energy", UnitFamily::EnergyPerBit, "energy per bit across the link (NVLink: 1.3 pJ/bit)")
            .def("1.3 pJ/bit"));
  s.add(param::quantity("area", UnitFamily::Area, "the host's area, counted in the design's area (0: not counted)")
            .def("0 mm2"));
  s.add(param::quantity("idle_power", UnitFamily::Power, "the host's power while the run lasts, busy or not").def("0 W"));
  s.provides(kHostRole);
  return s;
}

std::unique_ptr<CompanionHost> make_roofline_host(const ValidatedNode& node) {
  return std::make_unique<RooflineHost>(node.params);
}

}  // namespace strata
