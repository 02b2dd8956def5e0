// Component kind `noc` (role `noc`): the on-chip interconnect between a design's initiators
// (an NPU's cores) and its memory ports — a crossbar (every initiator one hop from every port)
// or a 2-D mesh (initiators on a grid, X-then-Y routing). `memory_ports` ports reach the memory
// (each a link of `memory_port_width` per direction); a request goes to port
// (address / port_interleave) mod memory_ports, so traffic spreads over memory channels the way
// a chip's controllers around its edge share it. On a mesh the ports sit on the first row's
// routers, spread evenly (one port: router 0). Links carry `link_width` bytes per cycle; a
// message occupies each link on its path for its serialisation time, so initiators contend for
// real. Requests carry only a header toward memory unless they are writes; read data crosses
// the path back.
//
// Connect phase: the design builds the NoC from its `noc` role slot, then calls connect(n)
// once it knows its n initiators; they bind to `target_socket` (one binding each, in order) and
// each memory_port(p) binds to the memory, with the TLM-2.0 approximately-timed protocol.
// Requests are accepted at once (the initiators bound what is in flight); each port forwards
// them in arrival order, honouring the memory's END_REQ back-pressure. Link reservation is
// plain bookkeeping on method calls: one event per request and per response, never per flit.
#pragma once

#include <cstdint>
#include <memory>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include <tlm_utils/peq_with_get.h>

#include "sim/component.h"
#include "sim/tlm_at.h"

namespace strata {

inline constexpr const char* kNocRole = "noc";

class Noc : public Component {
 public:
  static KindSpec spec();
  Noc(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);

  // Connect phase: `initiators` endpoints will bind to target_socket(), in order.
  void connect(int initiators);
  TargetSocket& target_socket() { return targets_.socket(); }
  int memory_ports() const { return static_cast<int>(ports_.size()); }
  InitiatorSocket& memory_port(int port) { return ports_[static_cast<std::size_t>(port)]->initiator.socket(); }

  // Analytic fidelity (sim/analytic.h): counts the messages of `reads` read and `writes` write
  // requests from `core` whose data is `read_bytes` and `write_bytes`, as traverse() counts
  // them (bytes, link bytes, hops, bit energy), without reserving links; the queueing average
  // is not filled.
  void account_analytic(int core, std::uint64_t reads, std::uint64_t writes, std::uint64_t read_bytes,
                        std::uint64_t write_bytes);
  // Analytic fidelity: the bandwidth (B/s) of each core's paths toward memory (or back) while
  // the cores marked in `active` stream at once, their traffic spread evenly over the memory
  // ports: per path its narrowest link's bandwidth shared equally by the active paths crossing
  // that link (on a mesh, the links next to a memory port carry many cores' data), the slowest
  // path bounding the core.
  std::vector<double> analytic_bandwidth(const std::vector<bool>& active, bool to_memory) const;
  // Seconds for a header to reach a memory port from `core` and for one to come back, unloaded
  // (averaged over the ports).
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
  struct Port {
    explicit Port(const std::string& name, AtInitiator::ResponseHandler on_response)
        : initiator(name.c_str(), std::move(on_response)) {}
    AtInitiator initiator;
    std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> pending;
    sc_core::sc_event pending_event;
  };
  // Reserves the links of `core`'s path to or from memory `port` for `bytes` starting at `t`;
  // returns the arrival time at the other end.
  sc_core::sc_time traverse(int core, int port, bool to_memory, std::uint64_t bytes, const sc_core::sc_time& t);
  std::vector<int> path(int core, int port, bool to_memory) const;  // link indices in order
  // path(), worked out once per route in connect(): traverse() runs for every message.
  const std::vector<int>& route(int core, int port, bool to_memory) const {
    return routes_[(static_cast<std::size_t>(core) * ports_.size() + static_cast<std::size_t>(port)) * 2 +
                   (to_memory ? 1 : 0)];
  }
  int port_of(const tlm::tlm_generic_payload& gp) const;
  bool is_port_link(int id) const { return id < 2 * memory_ports(); }

  // A core's BEGIN_REQ: reserves its path toward memory; accepted at once.
  bool accept(int core, tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay);
  void forward(Port& port);  // thread per port: requests to memory in arrival order
  void route_back();         // SC_METHOD: reserves the path back for responses from memory

  AtTarget targets_;
  std::vector<std::unique_ptr<Port>> ports_;
  int cores_ = 0;
  bool mesh_;
  int columns_ = 1;
  double hop_s_, seconds_per_byte_, port_seconds_per_byte_;
  std::uint64_t header_bytes_, interleave_;
  // Per memory port one link toward memory and one back (2p, 2p + 1); then, in a mesh, 4 per
  // router (E, W, N, S outputs), in a crossbar one in and one out per core.
  std::vector<Link> links_;
  std::vector<std::vector<int>> routes_;  // route()'s table
  // Looked up and erased, never iterated: a hash map (no order reaches the results).
  std::unordered_map<tlm::tlm_generic_payload*, int> origin_;
  std::uint64_t seq_ = 0;
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> responses_;

  Counter& messages_;
  Counter& bytes_;
  Counter& link_bytes_;
  Average& hops_per_message_;
  Average& queueing_;
  EnergyEvent* bit_energy_;
};

}  // namespace strata
