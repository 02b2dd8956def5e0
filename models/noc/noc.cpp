#include "models/noc/noc.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "models/noc/router_cost.h"
#include "sim/kernel.h"
#include "sim/simulated_time.h"

namespace strata {

KindSpec Noc::spec() {
  KindSpec s;
  s.name = "noc";
  s.description = "on-chip interconnect from the cores to the memory ports: crossbar or 2-D mesh with link contention";
  s.with_clock();
  s.provides(kNocRole);
  s.add(param::choice(
            "topology", {"crossbar", "mesh"},
            "crossbar: one hop from every core to every memory port; mesh: cores on a grid, memory ports on the "
            "first row's routers (one port: router 0), X-then-Y routing")
            .def("crossbar"));
  s.add(param::integer("memory_ports", "links from the network to the memory, each its own memory_port_width")
            .def("1")
            .range("1", "64")
            .hash_only_when_changed());
  s.add(param::quantity("port_interleave", UnitFamily::Size,
                        "address bytes mapped to one memory port before the next (request goes to port "
                        "address / port_interleave mod memory_ports)")
            .def("4 KiB")
            .range("64 B", "1 GiB")
            .hash_only_when_changed());
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

Noc::Noc(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : Component(name, cfg, ctx),
      targets_("target_socket", {[this](int core, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
                                   return accept(core, gp, delay);
                                 },
                                 {},
                                 {},
                                 {}}),
      mesh_(params().string("topology") == "mesh"),
      hop_s_(clock().time_of(static_cast<std::uint64_t>(params().integer("hop_latency"))).to_seconds()),
      seconds_per_byte_(clock().period().to_seconds() / params().quantity("link_width")),
      port_seconds_per_byte_(clock().period().to_seconds() / params().quantity("memory_port_width")),
      header_bytes_(static_cast<std::uint64_t>(params().quantity("header"))),
      interleave_(static_cast<std::uint64_t>(params().quantity("port_interleave"))),
      responses_("responses"),
      messages_(counter("messages", "messages", "requests and responses carried")),
      bytes_(counter("bytes", "B", "bytes carried (headers and data)")),
      link_bytes_(counter("link_bytes", "B", "bytes times links crossed")),
      hops_per_message_(average("hops", "hops", "routers crossed per message")),
      queueing_(average("queueing", "ns", "time messages waited for busy links")) {
  const int ports = static_cast<int>(params().integer("memory_ports"));
  for (int p = 0; p < ports; ++p) {
    ports_.push_back(std::make_unique<Port>(
        p == 0 ? std::string("initiator_socket") : fmt::format("initiator_socket_{}", p),
        [this](tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay) { responses_.notify(gp, delay); }));
    Port& port = *ports_.back();
    sc_core::sc_spawn([this, &port] { forward(port); }, p == 0 ? "forward" : fmt::format("forward_{}", p).c_str());
  }
  const TechTable& t = tech();
  const UnitCost router = router_cost(t);
  const double wire = t.wire_energy_per_bit_mm() * params().quantity("link_length");
  bit_energy_ = &energy_event("bit_hop", router.energy_j + wire, "bits times routers crossed (router plus link wire)");
  SC_HAS_PROCESS(Noc);
  SC_METHOD(route_back);
  sensitive << responses_.get_event();
  dont_initialize();
}

void Noc::connect(int initiators) {
  if (cores_ != 0) throw std::logic_error("noc: connected twice");
  cores_ = initiators;
  if (mesh_) {
    const auto given = params().integer("columns");
    columns_ = given > 0 ? static_cast<int>(given) : static_cast<int>(std::ceil(std::sqrt(cores_)));
  }
  links_.resize(2 * ports_.size() + static_cast<size_t>(mesh_ ? 4 * cores_ : 2 * cores_));
  for (int core = 0; core < cores_; ++core)
    for (int port = 0; port < memory_ports(); ++port)
      for (const bool to_memory : {false, true}) routes_.push_back(path(core, port, to_memory));
  const UnitCost router = router_cost(tech());
  const int routers = mesh_ ? cores_ : 1;
  add_area("routers", routers * router.area_mm2, routers * router.leakage_w);
}

int Noc::port_of(const tlm::tlm_generic_payload& gp) const {
  return static_cast<int>((gp.get_address() / interleave_) % ports_.size());
}

std::vector<int> Noc::path(int core, int port, bool to_memory) const {
  std::vector<int> links;
  const int port_link = 2 * port + (to_memory ? 0 : 1);
  const int first = 2 * memory_ports();
  if (!mesh_) {
    const int own = first + 2 * core + (to_memory ? 0 : 1);
    if (to_memory) return {own, port_link};
    return {port_link, own};
  }
  // Mesh, X then Y toward the port's router on the first row; the reverse path goes back along
  // X then Y from there (dimension order), so the two directions use different links.
  auto link = [first](int router, int dir) { return first + 4 * router + dir; };  // dir: 0 E, 1 W, 2 N, 3 S
  const int px = port * std::min(columns_, cores_) / memory_ports();
  int x = core % columns_, y = core / columns_;
  if (to_memory) {
    for (; x > px; --x) links.push_back(link(y * columns_ + x, 1));
    for (; x < px; ++x) links.push_back(link(y * columns_ + x, 0));
    for (; y > 0; --y) links.push_back(link(y * columns_ + px, 2));
    links.push_back(port_link);
  } else {
    links.push_back(port_link);
    for (int cx = px; cx < x; ++cx) links.push_back(link(cx, 0));
    for (int cx = px; cx > x; --cx) links.push_back(link(cx, 1));
    for (int cy = 0; cy < y; ++cy) links.push_back(link(cy * columns_ + x, 3));
  }
  return links;
}

sc_core::sc_time Noc::traverse(int core, int port, bool to_memory, std::uint64_t bytes, const sc_core::sc_time& start) {
  double t = to_seconds(start), waited = 0, serialise = 0;
  const std::vector<int>& links = route(core, port, to_memory);
  for (int id : links) {
    Link& l = links_[static_cast<size_t>(id)];
    const double ser = static_cast<double>(bytes) * (is_port_link(id) ? port_seconds_per_byte_ : seconds_per_byte_);
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
  double arrive = t + serialise;
  if (!reachable_time(*this, arrive)) arrive = to_seconds(start);  // the run is failing: deliver now
  return clock().next_edge(sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(std::llround(arrive * 1e15))));
}

void Noc::account_analytic(int core, std::uint64_t reads, std::uint64_t writes, std::uint64_t read_bytes,
                           std::uint64_t write_bytes) {
  const std::uint64_t requests = reads + writes;
  if (requests == 0) return;
  // Spread evenly over the ports: the links crossed per message, summed over the ports.
  std::uint64_t to = 0, back = 0;
  for (int p = 0; p < memory_ports(); ++p) {
    to += static_cast<std::uint64_t>(route(core, p, true).size());
    back += static_cast<std::uint64_t>(route(core, p, false).size());
  }
  const auto ports = static_cast<std::uint64_t>(memory_ports());
  // Toward memory: a header per request plus the write data; back: a header plus the read data.
  const std::uint64_t to_bytes = header_bytes_ * requests + write_bytes;
  const std::uint64_t back_bytes = header_bytes_ * requests + read_bytes;
  const std::uint64_t crossed = (to_bytes * to + back_bytes * back) / ports;
  messages_.add(2 * requests);
  bytes_.add(to_bytes + back_bytes);
  link_bytes_.add(crossed);
  hops_per_message_.sample(static_cast<double>(to) / static_cast<double>(ports), requests);
  hops_per_message_.sample(static_cast<double>(back) / static_cast<double>(ports), requests);
  bit_energy_->add(8 * crossed);
}

std::vector<double> Noc::analytic_bandwidth(const std::vector<bool>& active, bool to_memory) const {
  const auto ports = static_cast<std::size_t>(memory_ports());
  std::vector<int> users(links_.size(), 0);
  for (int c = 0; c < cores_; ++c)
    for (std::size_t p = 0; p < ports; ++p)
      if (active[static_cast<std::size_t>(c)])
        for (int id : route(c, static_cast<int>(p), to_memory)) ++users[static_cast<std::size_t>(id)];
  const double link = 1.0 / seconds_per_byte_;
  const double port = params().quantity("memory_port_width") / clock().period().to_seconds();
  std::vector<double> out(static_cast<std::size_t>(cores_), 0);
  for (int c = 0; c < cores_; ++c) {
    double slowest = std::numeric_limits<double>::infinity();
    for (std::size_t p = 0; p < ports; ++p) {
      double bw = std::numeric_limits<double>::infinity();
      for (int id : route(c, static_cast<int>(p), to_memory))
        bw = std::min(bw, (is_port_link(id) ? port : link) / std::max(1, users[static_cast<std::size_t>(id)]));
      slowest = std::min(slowest, bw);
    }
    out[static_cast<std::size_t>(c)] = slowest * static_cast<double>(ports);
  }
  return out;
}

double Noc::round_trip(int core) const {
  std::size_t hops = 0;
  for (int p = 0; p < memory_ports(); ++p) hops += route(core, p, true).size() + route(core, p, false).size();
  return static_cast<double>(hops) / memory_ports() * hop_s_ +
         2 * static_cast<double>(header_bytes_) * (seconds_per_byte_ + port_seconds_per_byte_);
}

bool Noc::accept(int core, tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay) {
  const int p = port_of(gp);
  origin_[&gp] = core;
  const std::uint64_t bytes = header_bytes_ + (gp.is_write() ? gp.get_data_length() : 0);
  const sc_core::sc_time at = traverse(core, p, true, bytes, sc_core::sc_time_stamp() + delay);
  Port& port = *ports_[static_cast<std::size_t>(p)];
  port.pending.push({at, seq_++, &gp});
  port.pending_event.notify(at - sc_core::sc_time_stamp());
  return true;
}

void Noc::forward(Port& port) {
  for (;;) {
    while (port.pending.empty() || port.pending.top().at > sc_core::sc_time_stamp()) {
      if (port.pending.empty()) wait(port.pending_event);
      else wait(port.pending.top().at - sc_core::sc_time_stamp(), port.pending_event);
    }
    tlm::tlm_generic_payload* gp = port.pending.top().gp;
    port.pending.pop();
    port.initiator.begin_request(*gp);
    while (port.initiator.request_open()) wait(port.initiator.request_ended());
  }
}

void Noc::route_back() {
  while (tlm::tlm_generic_payload* gp = responses_.get_next_transaction()) {
    auto it = origin_.find(gp);
    const int core = it->second;
    origin_.erase(it);
    const std::uint64_t bytes = header_bytes_ + (gp->is_read() ? gp->get_data_length() : 0);
    targets_.respond(core, *gp, traverse(core, port_of(*gp), false, bytes, sc_core::sc_time_stamp()));
  }
}

}  // namespace strata
