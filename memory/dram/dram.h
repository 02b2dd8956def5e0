// Component kind `dram`: a DRAM subsystem of one standard (DDR4/5, LPDDR5, HBM2/2E/3, GDDR6) with one
// ChannelController per (pseudo-)channel, behind one TLM-2.0 approximately-timed target socket.
//
// A request is split into bursts (the standard's access size); each burst goes to the channel
// the address mapping picks. The request is accepted (END_REQ) once every channel it touches
// has queue room (at once: several requests may enter in one memory cycle), else it waits
// (back-pressure). A read is answered (BEGIN_RESP) at the clock
// edge its last burst's data ends; writes are posted: answered on acceptance, written when the
// controller drains them. Reads of data still in the write queue are answered from it.
//
// Each channel is a SystemC method that sleeps until its controller's next legal command, so
// simulated idle or stalled cycles cost nothing. Keys are documented in spec() and its sections.
#pragma once

#include <memory>
#include <vector>

#include "memory/dram/address_mapping.h"
#include "memory/dram/channel_controller.h"
#include "memory/dram/dram_analytic.h"
#include "memory/dram/dram_energy.h"
#include "memory/dram/dram_spec.h"
#include "memory/dram/protocol_checker.h"
#include "memory/memory_capacity.h"
#include "sim/component.h"
#include "sim/ports.h"
#include "sim/tlm_at.h"

namespace strata {

// Role `dram`: a kind whose node describes a DRAM of one standard with the dram kind's keys
// (standard, clock, organization, timing, power, controller); `dram` provides it, besides
// memory_target. A design that models that DRAM itself instead of building it as a child (pim:
// the PIM device is the DRAM with units beside its banks) takes it in a slot requiring this role,
// so the schema refuses every other kind at its `kind:` key (file, line, exit 2), and reads it
// with Dram::describe().
inline constexpr const char* kDramRole = "dram";

// What a `dram` role node describes.
struct DramDescription {
  DramSpec spec;                // at the node's clock as written (not rounded to whole hertz)
  ControllerConfig controller;  // its controller section, checked against the standard
  MemoryCapacity capacity;      // its organization's bytes, at the organization's keys
};

class Dram : public Component, public MemoryTarget, public AnalyticMemory, public BoundedMemory {
 public:
  static KindSpec spec();
  Dram(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);
  ~Dram() override;
  TargetSocket& target_socket() override { return port_.socket(); }
  double peak_bandwidth() const override { return spec_.peak_bandwidth(); }
  int queues() const override { return spec_.org.controllers(); }
  MemoryCapacity capacity() const override;  // its organization's bytes
  int queue_of(std::uint64_t address) const override { return mapping_.decode(address).channel; }
  // Analytic fidelity: the closed forms of dram_analytic.h.
  double sustained_bandwidth() const override { return analytic().sustained_bandwidth(); }
  double streaming_energy_per_byte() const override;
  double unloaded_latency(bool write) const override;
  double bandwidth_share(const AnalyticTransfer& t) override {
    if (t.random) return analytic().random_share(t.row_bytes);
    return analytic().bandwidth_share(t.address, t.rows, t.row_bytes, t.stride == 0 ? t.row_bytes : t.stride);
  }
  // The read queues of every controller, in requests spread evenly over them.
  std::uint64_t queue_requests(std::uint64_t request_bytes) const override;
  void account_analytic(const AnalyticTransfer& t) override;
  void finalize(const sc_core::sc_time& end) override;
  double dynamic_energy_j() const override;
  // sim.reuse: the channels' active-rank cycles (background energy).
  std::vector<double> reuse_totals(const sc_core::sc_time& now) const override;
  void repeat_totals(const std::vector<double>& since, double times, const sc_core::sc_time& now) override;
  std::uint64_t bytes_moved() const { return bytes_read_.count() + bytes_written_.count(); }
  // The controller section of a validated dram node; throws InputError for settings the
  // standard does not have (per-bank refresh on DDR4) or that contradict each other.
  static ControllerConfig controller_config(const ValidatedNode& controller, const DramSpec& spec);
  // The `dram` role's interface: the DRAM a validated node of a kind providing it describes.
  static DramDescription describe(const ValidatedNode& node);

 private:
  struct Channel;
  struct Transaction {
    tlm::tlm_generic_payload* gp = nullptr;
    std::uint32_t parts_left = 0;
    std::uint64_t ready = 0;  // cycle the last part's data ends
    int port = 0;             // the target port it came in on
  };

  // Queues every burst of `gp` (from `port`) at cycle `at` if all its channels have room.
  bool try_accept(int port, tlm::tlm_generic_payload& gp, std::uint64_t at);
  void run_channel(int index);  // SC_METHOD per channel
  void answer(int port, tlm::tlm_generic_payload* gp, std::uint64_t cycle);
  void wake(Channel& ch, std::uint64_t cycle);
  struct EnergyBreakdown {
    double act = 0, read = 0, write = 0, refresh = 0, background = 0;
  };
  EnergyBreakdown channel_energy(const Channel& ch, double seconds) const;
  // Built on first use: the cycle-level path never needs it. It keeps the banks' open rows
  // between transfers, so it is not const.
  DramAnalytic& analytic() const;
  // Puts the analytic run's counts on the channels, with the refreshes and standby of `end`.
  void finalize_analytic(std::uint64_t end_cycle);

  // Accepted at once when every channel a request touches has room (the front end has a port
  // per channel, so several requests may enter in one memory cycle); the controllers see it
  // from the next edge on.
  AtTarget port_;
  DramSpec spec_;
  DramProtocol protocol_;  // its command set, for counters and traces
  ControllerConfig controller_config_;
  AddressMapping mapping_;
  DramEnergy energy_;
  std::vector<std::unique_ptr<Channel>> channels_;
  std::vector<Transaction> transactions_;
  std::vector<std::uint32_t> free_transactions_;
  std::vector<ChannelController::Completion> done_;  // scratch
  std::vector<std::uint32_t> parts_per_channel_;     // scratch
  // Per target port, the bursts of the request being offered, decoded once: a request refused
  // for want of queue room is offered again whenever any channel frees room.
  struct Offer {
    const tlm::tlm_generic_payload* gp = nullptr;
    std::uint64_t address = 0;
    std::uint32_t length = 0;
    bool write = false;
    std::vector<DramAddress> bursts;
    std::vector<std::pair<int, std::uint32_t>> channels;  // (channel, bursts in it)
  };
  const Offer& decode_offer(int port, const tlm::tlm_generic_payload& gp);
  std::vector<Offer> offers_;
  mutable std::unique_ptr<DramAnalytic> analytic_;
  // Analytic fidelity: bursts and activations of all channels, spread over them at the end.
  std::uint64_t analytic_reads_ = 0, analytic_writes_ = 0;
  double analytic_activations_ = 0;
  std::vector<std::pair<double, double>> analytic_busy_;  // when transfers moved data (s)

  Counter& requests_;
  Counter& bytes_read_;
  Counter& bytes_written_;
  Distribution& read_latency_;
  Distribution& write_latency_;
  EnergyEvent *act_energy_, *read_energy_, *write_energy_, *refresh_energy_, *refresh_bank_energy_, *active_energy_,
      *io_energy_;
};

}  // namespace strata
