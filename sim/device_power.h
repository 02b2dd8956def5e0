// The power model of a device whose clock holds for a whole run: an NPU, a PIM system, a GNN
// accelerator, a flash chiplet system (the GPU picks a clock per kernel itself: gpu_power.cpp).
// Its keys are power_management.h's (power_limit, clocks, dvfs, temperature,
// delivery_efficiency); docs/energy-area.md, Power and clocks, explains the model.
//
// With `clocks`, one clock runs the device's clock domain (the components the kind names and
// everything built under them) for the run:
//   dvfs: fixed    `clock`;
//   dvfs: capped   the fastest clock in [base, boost] at which the device's rated power stays
//                  within power_limit: every unit of the domain busy every cycle (each kind's
//                  Component::peak_dynamic_j_per_cycle), the memory streaming at its peak
//                  bandwidth, the clock tree, leakage, at the board's input. Accelerators rate one
//                  clock against their power this way rather than follow the load as GPUs do:
//                  the clock holds whatever runs, and no program can exceed the limit.
// The domain's events then cost the supply squared at that clock, and its clock tree
// (power.clock_at_1ghz over the domain's area) draws power every cycle of the run. Memories and
// networks with clocks of their own keep them.
#pragma once

#include <optional>
#include <vector>

#include "sim/component.h"
#include "sim/power_management.h"

namespace strata {

class EnergyEvent;

// Registers itself as the device's managed clock (Component::manage_clock).
class DevicePower : public ManagedClock {
 public:
  // Applies `device`'s temperature and delivery_efficiency to it and everything built under it;
  // with clocks, retimes `domain` (and their descendants) to the run's clock and declares the
  // clock tree on `device`. Call once the domain and the device's memory are built.
  // `memory_peak_w`: the memory's power streaming at its peak bandwidth (rated power only).
  DevicePower(Component& device, const std::vector<Component*>& domain, double memory_peak_w);

  // The run's clock (the device's own `clock` when unmanaged).
  double clock_hz() const { return hz_; }
  // The device's rated power at `hz` (W, at the board's input): what capped holds to the limit.
  double rated_power_w(double hz) const;
  // The run gives the device nothing to do (Component::hold_idle): its domain holds clocks.idle.
  void hold_idle() override;
  // The clock tree's energy over the first `seconds` of the run until finalize counts it: the
  // device's live figure for the power monitor (Component::dynamic_energy_j).
  double running_clock_j(double seconds) const override;
  // Its power (W), what the monitor counts over windows without events (Component::idle_power_w).
  double clock_power_w() const override;
  // After the run (from the device's finalize): the clock tree's cycles over `seconds` of
  // reported time, and the run's sustained_clock_hz and power_limited_fraction.
  void finalize(double seconds);

 private:
  // Runs the domain at `hz` from the start, its events at that clock's supply.
  void retime(double hz);

  Component& device_;
  std::optional<PowerManagement> power_;
  EnergyEvent* clock_event_ = nullptr;
  std::vector<Component*> clocked_;  // the device and its clock domain
  bool idle_ = false, finalized_ = false;
  double hz_ = 0, peak_j_per_cycle_ = 0, memory_peak_w_ = 0, static_w_ = 0;
};

}  // namespace strata
