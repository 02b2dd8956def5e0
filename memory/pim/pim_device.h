// A PIM DRAM: the DRAM of a `dram` node with the PIM commands added (pim_protocol.h), one
// ChannelController per (pseudo-)channel, their protocol checkers, the units' functional model
// (pim_units.h) and the energy of both sides. run() issues a kernel's command stream
// (pim_program.h) on every channel under the DRAM's timing and refresh, event-driven.
//
// Timing-only runs give every channel the same stream (all-bank commands, outputs split evenly),
// and identical controllers fed identical streams issue identical schedules: one channel is
// simulated and its counts stand for all (exactly; functional runs step every channel's units on
// the issued commands). Time runs on across kernels, so refresh keeps its schedule between them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "memory/dram/channel_controller.h"
#include "memory/dram/dram_energy.h"
#include "memory/dram/protocol_checker.h"
#include "memory/pim/pim_program.h"
#include "memory/pim/pim_units.h"
#include "sim/stats.h"
#include "sim/tech/tech_table.h"

namespace strata {

// Energy of one command of the units, from the tech table and the spec (pim_spec.h).
struct PimUnitEnergy {
  double mac_lane = 0;       // one lane's multiply and add in the units' format
  double register_access = 0;  // one burst into or out of a unit's register file
  double column = 0;         // one burst between the cells and a unit (cell read + path)
  double io_per_bit = 0;     // the DRAM's interface, for host bursts (WRGB, RDMAC)
  std::string source;
  static PimUnitEnergy from(const TechTable& tech, const DramSpec& dram, const PimSpec& pim, const std::string& standard);
  // Area of one unit: `unit_area` where given, else its lanes' multipliers and adders and its
  // register files from the tech table.
  static double unit_area_mm2(const TechTable& tech, const DramSpec& dram, const PimSpec& pim);
};

struct PimRun {
  std::uint64_t start = 0, end = 0;  // cycles: the first command's, the last command's data end
  std::vector<std::uint64_t> commands;  // by command id, summed over the channels
  std::uint64_t reopens = 0;            // rows reopened after refreshes, all channels
  std::uint64_t active_rank_cycles = 0;  // all channels
  // The commands' energy (PimDevice::command_cost), the active standby and the I/O of host
  // bursts; not the precharged standby, which runs whether or not the device works.
  double energy_j = 0;
  std::uint64_t cycles() const { return end - start; }
};

class PimDevice {
 public:
  struct Options {
    bool check_protocol = false;
    bool functional = false;             // the units compute with data (tests), rounding with:
    PimUnits::Rounding round = nullptr;  // a value rounded to the units' format
  };
  PimDevice(const DramSpec& dram, const ControllerConfig& controller, const PimSpec& pim, const TechTable& tech,
            const std::string& standard_key, Options options);
  ~PimDevice();

  const DramSpec& dram() const { return dram_; }
  const PimSpec& pim() const { return pim_; }
  const DramProtocol& protocol() const { return protocol_; }
  const PimCommands& commands() const { return cmd_; }
  const DramEnergy& dram_energy() const { return energy_; }
  // What one command costs, by command id: the IDD model's (an all-bank activation is every
  // bank's), and for MACAB and MOVAB every unit's column access, lanes and registers; 0 for
  // commands whose energy is in another's (PRE, PREA in ACT's) . `what` says which.
  struct CommandCost {
    double joules = 0;
    std::string what;
  };
  const std::vector<CommandCost>& command_cost() const { return cost_; }
  // Commands that move a burst across the DRAM's interface to or from the host.
  bool host_burst(DramCmd c) const { return c == DramCmd::RD || c == DramCmd::WR || c == cmd_.WRGB || c == cmd_.RDMAC; }
  const PimUnitEnergy& unit_energy() const { return unit_energy_; }
  int channels() const { return dram_.org.controllers(); }
  std::uint64_t now() const { return now_; }
  // The DRAM is idle (the host is busy) until `cycle`.
  void advance_to(std::uint64_t cycle) { now_ = std::max(now_, cycle); }

  // Issues the refreshes of the idle stretch up to `end` (the run's end) and closes the active
  // standby accounting; returns what that cost.
  PimRun idle_until(std::uint64_t end);
  // Runs `program` on every channel from now() on; throws std::runtime_error with the first
  // protocol violation when checking. Rewinds the program first. A program of ordinary commands
  // (ACT, RD, PRE) runs the same way: the baseline of the same DRAM without PIM.
  PimRun run(PimProgram& program);
  // The functional state of a channel's units and banks (Options::functional).
  PimUnits& units(int channel) { return *units_.at(static_cast<std::size_t>(channel)); }
  // Test hook (mutation test): schedule with this timing while the checkers keep the real one.
  void use_timing_for_scheduling(const DramSpec& wrong_dram, const PimSpec& wrong_pim);
  // Precharged standby energy over `seconds` (every channel).
  double standby_energy_j(double seconds) const { return energy_.standby_power * seconds; }

 private:
  struct Channel;
  struct Snapshot {
    std::vector<std::uint64_t> commands;
    std::uint64_t reopens = 0, active = 0;
  };
  Snapshot snapshot(std::uint64_t at) const;
  // The counts since `before`, times the channels, and their energy.
  void measure(const Snapshot& before, PimRun& r) const;

  DramSpec dram_;
  PimSpec pim_;
  DramProtocol protocol_;
  PimCommands cmd_;
  DramEnergy energy_;
  PimUnitEnergy unit_energy_;
  std::vector<CommandCost> cost_;
  Options options_;
  StatsRegistry stats_;
  std::vector<std::unique_ptr<Channel>> channels_;
  std::vector<std::unique_ptr<PimUnits>> units_;
  std::uint64_t now_ = 0;
};

}  // namespace strata
