#include "models/noc/noc.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "models/noc/router_cost.h"

namespace strata {

KindSpec Noc::spec() {
  KindSpec s;
  s.name = "noc";
  s.description = "on-chip interconnect from the cores to the memory port: crossbar or 2-D mesh with link contention";
  s.with_clock();
  s.add(param::choice("topology", {"crossbar", "mesh"},
                      "crossbar: one hop from every core to the memory port; mesh: cores on a grid, memory at router 0, "
                      "X-then-Y routing")
            .def("crossbar"));
  s.add(param::integer("columns", "mesh: routers per row (0: the smallest square grid that holds every core)")
            .def("0")
            .range("0", "1024"));
  s.add(param::quantity("link_width", UnitFamily::Size, "bytes a link carries per cycle").def("64 B").range("1 B", "64 KiB"));
  s.add(param::quantity("memory_port_width", UnitFamily::Size,
                        "bytes per cycle of the link between the network and the memory controller (each direction)")
            .def("1 KiB")
            .range("1 B", "1 MiB"));
  s.add(param::integer("hop_latency", "cycles for a message head to cross one router and link").def("2").range("0", "1024"));
  s.add(param::quantity("header", UnitFamily::Size, "bytes of a request without data (address, command)")
            .def("16 B")
            .range("0 B", "1 KiB"));
  s.add(param::quantity("link_length", UnitFamily::Length, "wire length of one link (energy per bit)")
            .def("1 mm")
            .range("0 mm", "100 mm"));
  return s;
}

Noc::Noc(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx, int cores)
    : Component(name, cfg, ctx),
      targets_("target_socket", {[this](int core, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
                                   return accept(core, gp, delay);
                                 },
                                 {},
                                 {},
                                 {}}),
      initiator_("initiator_socket",
                 [this](tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay) { responses_.notify(gp, delay); }),
      cores_(cores),
      mesh_(params().string("topology") == "mesh"),
      hop_s_(clock().time_of(static_cast<std::uint64_t>(params().integer("hop_latency"))).to_seconds()),
      seconds_per_byte_(clock().period().to_seconds() / params().quantity("link_width")),
      header_bytes_(static_cast<std::uint64_t>(params().quantity("header"))),
      responses_("responses"),
      messages_(counter("messages", "messages", "requests and responses carried")),
      bytes_(counter("bytes", "B", "bytes carried (headers and data)")),
      link_bytes_(counter("link_bytes", "B", "bytes times links crossed")),
      hops_per_message_(average("hops", "hops", "routers crossed per message")),
      queueing_(average("queueing", "ns", "time messages waited for busy links")) {
  if (mesh_) {
    const auto given = params().integer("columns");
    columns_ = given > 0 ? static_cast<int>(given) : static_cast<int>(std::ceil(std::sqrt(cores_)));
  }
  // Links: per router four outputs (E, W, N, S) in a mesh, or per core one in and one out of the
  // crossbar; plus the memory port (index 0: toward memory, 1: back).
  links_.resize(2 + static_cast<size_t>(mesh_ ? 4 * cores_ : 2 * cores_));
  const TechTable& t = tech();
  const UnitCost router = router_cost(t);
  const double wire = t.wire_energy_per_bit_mm() * params().quantity("link_length");
  bit_energy_ = &energy_event("bit_hop", router.energy_j + wire, "bits times routers crossed (router plus link wire)");
  const int routers = mesh_ ? cores_ : 1;
  add_area("routers", routers * router.area_mm2, routers * router.leakage_w);
  SC_HAS_PROCESS(Noc);
  SC_THREAD(forward);
  SC_METHOD(route_back);
  sensitive << responses_.get_event();
  dont_initialize();
}

std::vector<int> Noc::path(int core, bool to_memory) const {
  std::vector<int> links;
  const int port = to_memory ? 0 : 1;
  if (!mesh_) {
    const int own = 2 + 2 * core + (to_memory ? 0 : 1);
    if (to_memory) return {own, port};
    return {port, own};
  }
  // Mesh, X then Y toward memory at router 0; the reverse path goes back along X then Y from
  // router 0 (dimension order), so the two directions use different links.
  auto link = [](int router, int dir) { return 2 + 4 * router + dir; };  // dir: 0 E, 1 W, 2 N, 3 S
  int x = core % columns_, y = core / columns_;
  if (to_memory) {
    for (; x > 0; --x) links.push_back(link(y * columns_ + x, 1));
    for (; y > 0; --y) links.push_back(link(y * columns_, 2));
    links.push_back(port);
  } else {
    links.push_back(port);
    for (int cx = 0; cx < x; ++cx) links.push_back(link(cx, 0));
    for (int cy = 0; cy < y; ++cy) links.push_back(link(cy * columns_ + x, 3));
  }
  return links;
}

sc_core::sc_time Noc::traverse(int core, bool to_memory, std::uint64_t bytes, const sc_core::sc_time& start) {
  const double port_spb = clock().period().to_seconds() / params().quantity("memory_port_width");
  double t = start.to_seconds(), waited = 0, serialise = 0;
  const std::vector<int> links = path(core, to_memory);
  for (int id : links) {
    Link& l = links_[static_cast<size_t>(id)];
    const double ser = static_cast<double>(bytes) * (id < 2 ? port_spb : seconds_per_byte_);
    const double begin = std::max(t, l.free_s);
    waited += begin - t;
    l.free_s = begin + ser;
    t = begin + hop_s_;
    serialise = ser;
  }
  messages_.add();
  bytes_.add(bytes);
  link_bytes_.add(bytes * links.size());
  hops_per_message_.sample(static_cast<double>(links.size()));
  queueing_.sample(waited * 1e9);
  bit_energy_->add(8 * bytes * links.size());
  // The tail arrives one serialisation time after the head; land on our clock's edge.
  const double arrive = t + serialise;
  return clock().next_edge(sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(std::llround(arrive * 1e15))));
}

void Noc::account_analytic(int core, std::uint64_t reads, std::uint64_t writes, std::uint64_t read_bytes,
                           std::uint64_t write_bytes) {
  const std::uint64_t requests = reads + writes;
  if (requests == 0) return;
  const auto to = static_cast<std::uint64_t>(path(core, true).size());
  const auto back = static_cast<std::uint64_t>(path(core, false).size());
  // Toward memory: a header per request plus the write data; back: a header plus the read data.
  const std::uint64_t to_bytes = header_bytes_ * requests + write_bytes;
  const std::uint64_t back_bytes = header_bytes_ * requests + read_bytes;
  messages_.add(2 * requests);
  bytes_.add(to_bytes + back_bytes);
  link_bytes_.add(to_bytes * to + back_bytes * back);
  hops_per_message_.sample(static_cast<double>(to), requests);
  hops_per_message_.sample(static_cast<double>(back), requests);
  bit_energy_->add(8 * (to_bytes * to + back_bytes * back));
}

std::vector<double> Noc::analytic_bandwidth(const std::vector<bool>& active, bool to_memory) const {
  std::vector<std::vector<int>> paths(static_cast<std::size_t>(cores_));
  std::vector<int> users(links_.size(), 0);
  for (int c = 0; c < cores_; ++c) {
    paths[static_cast<std::size_t>(c)] = path(c, to_memory);
    if (active[static_cast<std::size_t>(c)])
      for (int id : paths[static_cast<std::size_t>(c)]) ++users[static_cast<std::size_t>(id)];
  }
  const double link = 1.0 / seconds_per_byte_;
  const double port = params().quantity("memory_port_width") / clock().period().to_seconds();
  std::vector<double> out(static_cast<std::size_t>(cores_), 0);
  for (int c = 0; c < cores_; ++c) {
    double bw = std::numeric_limits<double>::infinity();
    for (int id : paths[static_cast<std::size_t>(c)])
      bw = std::min(bw, (id < 2 ? port : link) / std::max(1, users[static_cast<std::size_t>(id)]));
    out[static_cast<std::size_t>(c)] = bw;
  }
  return out;
}

double Noc::round_trip(int core) const {
  const double port_spb = clock().period().to_seconds() / params().quantity("memory_port_width");
  const double hops = static_cast<double>(path(core, true).size() + path(core, false).size());
  return hops * hop_s_ + 2 * static_cast<double>(header_bytes_) * (seconds_per_byte_ + port_spb);
}

bool Noc::accept(int core, tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay) {
  origin_[&gp] = core;
  const std::uint64_t bytes = header_bytes_ + (gp.is_write() ? gp.get_data_length() : 0);
  const sc_core::sc_time at = traverse(core, true, bytes, sc_core::sc_time_stamp() + delay);
  pending_.push({at, seq_++, &gp});
  pending_event_.notify(at - sc_core::sc_time_stamp());
  return true;
}

void Noc::forward() {
  for (;;) {
    while (pending_.empty() || pending_.top().at > sc_core::sc_time_stamp()) {
      if (pending_.empty())
        wait(pending_event_);
      else
        wait(pending_.top().at - sc_core::sc_time_stamp(), pending_event_);
    }
    tlm::tlm_generic_payload* gp = pending_.top().gp;
    pending_.pop();
    initiator_.begin_request(*gp);
    while (initiator_.request_open()) wait(initiator_.request_ended());
  }
}

void Noc::route_back() {
  while (tlm::tlm_generic_payload* gp = responses_.get_next_transaction()) {
    auto it = origin_.find(gp);
    const int core = it->second;
    origin_.erase(it);
    const std::uint64_t bytes = header_bytes_ + (gp->is_read() ? gp->get_data_length() : 0);
    targets_.respond(core, *gp, traverse(core, false, bytes, sc_core::sc_time_stamp()));
  }
}

}  // namespace strata
