// Component kind `noc`: the on-chip interconnect between an NPU's cores and its memory
// controller — a crossbar (every core one hop from the memory port) or a 2-D mesh (cores on a
// grid, the memory port at router 0, dimension-ordered X-then-Y routing). Links carry
// `link_width` bytes per cycle; a message occupies each link on its path for its serialisation
// time, so cores contend for real (a link busy with one core's data delays another's).
// Requests carry only a header toward memory unless they are writes; read data crosses the
// path back.
//
// Cores bind their DMA initiators to `target_socket` (one binding per core, in core order) and
// the NoC forwards over `initiator_socket` to the memory with the TLM-2.0 approximately-timed
// protocol. Requests are accepted at once (the DMA engines bound what is in flight); the NoC
// forwards them to memory in arrival order, honouring the memory's END_REQ back-pressure.
// Link reservation is plain bookkeeping on method calls: one event per request and per
// response, never per flit.
#pragma once

#include <cstdint>
#include <map>
#include <queue>
#include <vector>

#include <tlm_utils/peq_with_get.h>

#include "sim/component.h"
#include "sim/tlm_at.h"

namespace strata {

class Noc : public Component {
 public:
  static KindSpec spec();
  Noc(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx, int cores);

  TargetSocket& target_socket() { return targets_.socket(); }
  InitiatorSocket& initiator_socket() { return initiator_.socket(); }

  // Analytic fidelity (sim/analytic.h): counts the messages of `reads` read and `writes` write
  // requests from `core` whose data is `read_bytes` and `write_bytes`, as traverse() counts
  // them (bytes, link bytes, hops, bit energy), without reserving links; the queueing average
  // is not filled.
  void account_analytic(int core, std::uint64_t reads, std::uint64_t writes, std::uint64_t read_bytes,
                        std::uint64_t write_bytes);
  // Analytic fidelity: the bandwidth (B/s) of each core's path toward memory (or back) while
  // the cores marked in `active` stream at once: its narrowest link's bandwidth shared equally
  // by the active cores whose paths cross that link (on a mesh, the links next to the memory
  // port carry many cores' data).
  std::vector<double> analytic_bandwidth(const std::vector<bool>& active, bool to_memory) const;
  // Seconds for a header to reach the memory port from `core` and for one to come back, unloaded.
  double round_trip(int core) const;

 private:
  struct Link {
    double free_s = 0;  // when the link is next free
  };
  struct Pending {
    sc_core::sc_time at;
    std::uint64_t seq;
    tlm::tlm_generic_payload* gp;
    bool operator>(const Pending& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  // Reserves the links of `core`'s path (toward memory or back) for `bytes` starting at `t`;
  // returns the arrival time at the other end.
  sc_core::sc_time traverse(int core, bool to_memory, std::uint64_t bytes, const sc_core::sc_time& t);
  std::vector<int> path(int core, bool to_memory) const;  // link indices in order

  // A core's BEGIN_REQ: reserves its path toward memory; accepted at once.
  bool accept(int core, tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay);
  void forward();     // SC_THREAD: requests to memory in arrival order
  void route_back();  // SC_METHOD: reserves the path back for responses from memory

  AtTarget targets_;
  AtInitiator initiator_;
  int cores_;
  bool mesh_;
  int columns_ = 1;
  double hop_s_, seconds_per_byte_;
  std::uint64_t header_bytes_;
  std::vector<Link> links_;  // mesh: 4 per router (E, W, N, S outputs) + 1 ejection; crossbar: one in and one out per core
  std::map<tlm::tlm_generic_payload*, int> origin_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> pending_;
  std::uint64_t seq_ = 0;
  sc_core::sc_event pending_event_;
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> responses_;

  Counter& messages_;
  Counter& bytes_;
  Counter& link_bytes_;
  Average& hops_per_message_;
  Average& queueing_;
  EnergyEvent* bit_energy_;
};

}  // namespace strata
