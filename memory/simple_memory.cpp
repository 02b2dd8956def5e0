#include "memory/simple_memory.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/kernel.h"
#include "sim/simulated_time.h"

namespace strata {

KindSpec SimpleMemory::spec() {
  KindSpec s;
  s.name = "simple_memory";
  s.description = "fixed-latency memory with a bandwidth limit and a bounded queue (TLM-2.0 AT target)";
  s.with_clock();
  s.add(param::quantity("latency", UnitFamily::Time, "access latency from acceptance to the first data")
            .def("50 ns")
            .range("0 s", "1 s"));
  s.add(param::quantity("bandwidth", UnitFamily::Bandwidth, "peak data bandwidth of the one data channel")
            .def("25.6 GB/s")
            .range("1 kB/s", "1000 TB/s"));
  s.add(param::integer("queue_depth", "requests accepted and not yet answered; more wait for END_REQ")
            .def("32")
            .range("1", "1048576"));
  s.add(param::string("standard",
                       "the DRAM standard (a `dram:` row of the technology table: ddr4, ddr5, lpddr5, hbm2, hbm2e, "
                       "hbm3, gddr6) whose energy per bit and PHY area this channel takes")
            .def("ddr4"));
  s.provides(kMemoryTargetRole);
  return s;
}

SimpleMemory::SimpleMemory(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : Component(name, cfg, ctx),
      port_("socket", {[this](int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
                         return accept(port, gp, delay);
                       },
                       [this](tlm::tlm_generic_payload&) {
                         service_latency_.sample(to_seconds(sc_core::sc_time_stamp() - inflight_.front()) * 1e9);
                       },
                       [this](tlm::tlm_generic_payload&) { complete_head(); },
                       [this](tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) { b_transport(gp, delay); }}),
      latency_(clock().time_of(clock().cycles_in(params().quantity("latency")))),
      seconds_per_byte_(1.0 / params().quantity("bandwidth")),
      queue_depth_(static_cast<size_t>(params().integer("queue_depth"))),
      reads_(counter("reads", "requests", "read requests served")),
      writes_(counter("writes", "requests", "write requests served")),
      bytes_(counter("bytes", "B", "bytes transferred")),
      service_latency_(distribution("service_latency", "ns", "time from END_REQ to BEGIN_RESP")),
      occupancy_(time_average("occupancy", "requests", "requests accepted and not yet answered")),
      bandwidth_series_(time_series("bandwidth_over_time", "GB/s", "data bandwidth per window", 1e-9)),
      bandwidth_(scalar("bandwidth", "GB/s", "bytes transferred over simulated time")),
      utilization_(scalar("utilization", "fraction", "share of simulated time the data channel was busy")),
      bit_energy_(energy_event("bit", dram_row().access.energy_j, "bits read or written (technology table)")) {
  const UnitCost phy = dram_row().access;
  add_area("phy", phy.area_mm2, phy.leakage_w);
}

DramInterfaceCost SimpleMemory::dram_row() const { return tech_row("standard", dram_interface_cost); }

sc_core::sc_time SimpleMemory::schedule(const sc_core::sc_time& accepted, unsigned bytes) {
  const double start = std::max(to_seconds(accepted + latency_), channel_free_s_);
  const double transfer = bytes * seconds_per_byte_;
  channel_free_s_ = start + transfer;
  busy_s_ += transfer;
  bytes_.add(bytes);
  bit_energy_.add(8ull * bytes);
  bandwidth_series_.add(start, bytes);
  // The response leaves on the first edge at or after the last byte (now, where that is past
  // the longest simulated time: the run is failing).
  const double end_s = reachable_time(*this, channel_free_s_) ? channel_free_s_ : to_seconds(accepted);
  const auto done = sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(std::llround(end_s * 1e15)));
  return clock().next_edge(done);
}

bool SimpleMemory::accept(int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (inflight_.size() >= queue_depth_) return false;  // END_REQ when a slot frees
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  const sc_core::sc_time arrival = clock().next_edge(sc_core::sc_time_stamp() + delay);
  (gp.is_write() ? writes_ : reads_).add();
  const sc_core::sc_time respond_at = schedule(arrival, gp.get_data_length());
  inflight_.push_back(arrival);
  occupancy_.set(to_seconds(arrival), static_cast<double>(inflight_.size()));
  port_.respond(port, gp, respond_at);
  delay = arrival - sc_core::sc_time_stamp();
  return true;
}

void SimpleMemory::complete_head() {
  inflight_.pop_front();
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  occupancy_.set(to_seconds(now), static_cast<double>(inflight_.size()));
  port_.retry(clock().next_edge(now) - now);
}

void SimpleMemory::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  // Loosely-timed callers get the unloaded-or-queued timing of the same data channel.
  const sc_core::sc_time start = sc_core::sc_time_stamp() + delay;
  (gp.is_write() ? writes_ : reads_).add();
  const sc_core::sc_time done = schedule(clock().next_edge(start), gp.get_data_length());
  service_latency_.sample(to_seconds(done - start) * 1e9);
  delay = done - sc_core::sc_time_stamp();
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void SimpleMemory::account_analytic(const AnalyticTransfer& t) {
  // What schedule() counts per request, for all of t's requests at once.
  (t.write ? writes_ : reads_).add(t.requests);
  bytes_.add(t.bytes());
  bit_energy_.add(8 * t.bytes());
  busy_s_ += static_cast<double>(t.bytes()) * seconds_per_byte_;
  bandwidth_series_.add_spread(t.start_s, t.end_s, static_cast<double>(t.bytes()));
}

void SimpleMemory::finalize(const sc_core::sc_time& end) {
  occupancy_.finish(end.to_seconds());
  bandwidth_series_.finish(end.to_seconds());
  const double t = reported_s(end);
  bandwidth_.set(t > 0 ? static_cast<double>(bytes_.count()) / t * 1e-9 : 0);
  utilization_.set(t > 0 ? std::min(1.0, busy_s_ / t) : 0);
}

}  // namespace strata
