// A SystemC platform of someone else's, built against an installed Strata (find_package(Strata),
// see CMakeLists.txt here and docs/library.md): its own TLM-2.0 initiator, written with plain
// tlm_utils, drives Strata's DRAM model, built from a shipped YAML preset through the registry.
//
//   external_platform [PRESET]     default: ${STRATA_CONFIG_DIR}/hardware/memory/ddr4-3200.yaml
//
// It issues three reads on an idle memory (a closed row, a row hit, a row conflict), then a
// stream of reads and writes with up to 32 in flight, and prints latency, bandwidth and energy
// from Strata's statistics. Exit status 0 only if every transaction completed with
// TLM_OK_RESPONSE, the idle reads took exactly what the preset's timing says (tRCD + CL + tBURST
// and so on, in its clock's cycles), and the stream's bandwidth and the energy are sane. Any
// memory preset runs, but the idle reads' addresses and the bounds are chosen for DDR4-3200 (one
// channel, row-bank-rank-column-channel mapping): another preset may fail the checks.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "accelerators/builtin_kinds.h"  // strata::register_builtin_kinds
#include "sim/component.h"               // strata::Component: finalize, close_accounting
#include "sim/config_loader.h"           // strata::load_config (resolves `extends:`)
#include "sim/input_error.h"             // strata::InputError: a bad preset, named by file, line and key
#include "sim/kernel.h"                  // strata::init_systemc
#include "sim/ports.h"                   // strata::MemoryTarget: target_socket(), peak_bandwidth()
#include "sim/registry.h"                // strata::Registry
#include "sim/schema.h"                  // strata::validate, strata::ValidatedNode
#include "sim/sim_context.h"             // strata::SimContext: statistics, protocol checking
#include "sim/stats.h"                   // strata::StatsRegistry, Stat
#include "sim/tlm_at.h"                  // strata::bind_at

#ifndef STRATA_CONFIG_DIR
#define STRATA_CONFIG_DIR "configs"
#endif

namespace {

using sc_core::sc_time;

// The platform's initiator: a simple_initiator_socket speaking the approximately-timed base
// protocol (BEGIN_REQ / END_REQ / BEGIN_RESP, completing every response on its return path),
// which every Strata memory implements (the DRAM has no b_transport).
class Initiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Initiator> socket{"socket"};

  struct Transaction : tlm::tlm_generic_payload {
    sc_time issued, done;
    bool completed = false;
  };

  // What the run measured.
  sc_time idle_latency[3];  // closed row, row hit, row conflict
  sc_time stream_start, stream_end;
  std::uint64_t stream_bytes = 0;
  int issued = 0, completed = 0, failed = 0;

  static constexpr std::uint32_t kBytes = 64;
  static constexpr int kStreamRequests = 4096;
  static constexpr int kMaxOutstanding = 32;

  SC_HAS_PROCESS(Initiator);
  explicit Initiator(sc_core::sc_module_name name) : sc_module(name) {
    socket.register_nb_transport_bw(this, &Initiator::nb_transport_bw);
    SC_THREAD(run);
  }

 private:
  void run() {
    // Three reads on an idle memory, a microsecond apart (on DRAM clock edges, and before the
    // first refresh): address 0 opens row 0 of bank 0, 0x40 hits it, 0x40000 (the next row
    // of the same bank with the preset's row-bank-rank-column-channel mapping) conflicts.
    const std::uint64_t idle_addresses[3] = {0x0, 0x40, 0x40000};
    for (int i = 0; i < 3; ++i) {
      const sc_time at(static_cast<double>(i), sc_core::SC_US);
      if (at > sc_core::sc_time_stamp()) wait(at - sc_core::sc_time_stamp());
      Transaction& t = send(idle_addresses[i], false);
      while (!t.completed) wait(response_);
      idle_latency[i] = t.done - t.issued;
    }

    // A stream from 1 MiB on: every fourth request a write, at most one issued per nanosecond
    // and kMaxOutstanding in flight.
    const sc_time stream_at(3, sc_core::SC_US);
    if (stream_at > sc_core::sc_time_stamp()) wait(stream_at - sc_core::sc_time_stamp());
    stream_start = sc_core::sc_time_stamp();
    for (int i = 0; i < kStreamRequests; ++i) {
      while (outstanding_ >= kMaxOutstanding) wait(response_);
      send(0x100000 + static_cast<std::uint64_t>(i) * kBytes, i % 4 == 3);
      stream_bytes += kBytes;
      wait(1, sc_core::SC_NS);
    }
    while (outstanding_ > 0) wait(response_);
    sc_core::sc_stop();  // the DRAM's refresh would keep the simulation going forever
  }

  // Sends BEGIN_REQ and returns once the request phase has ended (END_REQ, on either path).
  Transaction& send(std::uint64_t address, bool write) {
    Transaction& t = transactions_.emplace_back();
    t.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    t.set_address(address);
    t.set_data_ptr(data_);  // Strata's memories are timing models: the data is not stored
    t.set_data_length(kBytes);
    t.set_streaming_width(kBytes);
    t.set_byte_enable_ptr(nullptr);
    t.set_dmi_allowed(false);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    t.issued = sc_core::sc_time_stamp();
    ++issued;
    ++outstanding_;

    request_open_ = &t;
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_time delay = sc_core::SC_ZERO_TIME;
    const tlm::tlm_sync_enum status = socket->nb_transport_fw(t, phase, delay);
    if (status == tlm::TLM_UPDATED && phase == tlm::END_REQ) {
      request_open_ = nullptr;
      wait(delay);
    } else if (status == tlm::TLM_COMPLETED || (status == tlm::TLM_UPDATED && phase == tlm::BEGIN_RESP)) {
      request_open_ = nullptr;
      complete(t, delay);
    } else {
      while (request_open_ == &t) wait(end_request_);  // TLM_ACCEPTED: END_REQ comes backwards
    }
    return t;
  }

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_time& delay) {
    if (phase == tlm::END_REQ || phase == tlm::BEGIN_RESP) {
      // BEGIN_RESP ends the request phase too, if END_REQ never came.
      if (request_open_ == &gp) {
        request_open_ = nullptr;
        end_request_.notify(delay);
      }
    }
    if (phase == tlm::END_REQ) return tlm::TLM_ACCEPTED;
    if (phase == tlm::BEGIN_RESP) {
      complete(static_cast<Transaction&>(gp), delay);
      return tlm::TLM_COMPLETED;  // no END_RESP round trip
    }
    SC_REPORT_ERROR("external_platform", "unexpected phase on the backward path");
    return tlm::TLM_COMPLETED;
  }

  void complete(Transaction& t, const sc_time& delay) {
    t.done = sc_core::sc_time_stamp() + delay;
    t.completed = true;
    ++completed;
    if (t.get_response_status() != tlm::TLM_OK_RESPONSE) ++failed;
    if (t.done > stream_end) stream_end = t.done;
    --outstanding_;
    response_.notify(delay);
  }

  std::deque<Transaction> transactions_;  // a deque: addresses stay valid as it grows
  unsigned char data_[kBytes] = {};
  Transaction* request_open_ = nullptr;
  int outstanding_ = 0;
  sc_core::sc_event end_request_, response_;
};

double stat(const strata::SimContext& ctx, const std::string& name, const std::string& field = "value") {
  const strata::Stat& s = ctx.stats().at(name);
  return field == "value" ? s.value() : s.field(field);
}

int check(bool ok, const std::string& what) {
  std::printf("  check: %-60s %s\n", what.c_str(), ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  strata::init_systemc();  // 1 fs resolution, SystemC errors as exceptions; before any sc_time
  const std::string preset = argc > 1 ? argv[1] : STRATA_CONFIG_DIR "/hardware/memory/ddr4-3200.yaml";
  try {
    // Every kind Strata ships (the technology tables' sections come with their folders' kinds,
    // so registering memory/'s alone would leave the tables' `links` and `router` unknown), a
    // preset validated against its kind, and the component.
    strata::Registry registry;
    strata::register_builtin_kinds(registry);
    strata::ConfigNode config = strata::load_config(preset);
    const strata::ConfigNode* kind_key = config.find("kind");
    const strata::KindSpec* kind = kind_key ? registry.find("component", kind_key->value()) : nullptr;
    if (!kind) throw std::runtime_error(preset + ": not a preset of a memory kind of Strata's");
    const strata::ValidatedNode node = strata::validate(config, *kind, "memory", registry);

    strata::SimContext ctx(registry, /*seed=*/1, /*stats_window_s=*/1e-6);
    ctx.set_check_protocol(true);  // bind_at puts Strata's TLM-2.0 base-protocol checker in between
    std::unique_ptr<strata::Component> memory = registry.make_component("memory", node, ctx);
    auto* target = dynamic_cast<strata::MemoryTarget*>(memory.get());
    if (!target) throw std::runtime_error(preset + ": kind '" + kind->name + "' is not a memory target");

    Initiator cpu("cpu");
    strata::bind_at(ctx, cpu.socket, target->target_socket(), "cpu");  // or cpu.socket.bind(...)
    sc_core::sc_start();
    if (ctx.failure()) throw *ctx.failure();

    // End of run: each component's end-of-run statistics, then its energy and area.
    const sc_time end = sc_core::sc_time_stamp();
    for (strata::Component* c : ctx.components()) c->finalize(end);
    double energy_j = 0;
    for (strata::Component* c : ctx.components()) energy_j += c->close_accounting(end).first;

    // The preset's arithmetic, in its clock's cycles: tRCD + CL + tBURST for a closed row, CL +
    // tBURST for a hit, tRP more for a conflict.
    const strata::Params& timing = node.child("timing").params;
    const double tck_ns = 1e9 / node.params.quantity("clock");
    const std::int64_t rcd = timing.integer("tRCD"), cl = timing.integer("CL"), burst = timing.integer("tBURST"),
                       rp = timing.integer("tRP");
    const double expected_ns[3] = {static_cast<double>(rcd + cl + burst) * tck_ns,
                                   static_cast<double>(cl + burst) * tck_ns,
                                   static_cast<double>(rp + rcd + cl + burst) * tck_ns};
    const double peak_gbps = target->peak_bandwidth() * 1e-9;
    const double stream_s = (cpu.stream_end - cpu.stream_start).to_seconds();
    const double stream_gbps = stream_s > 0 ? static_cast<double>(cpu.stream_bytes) / stream_s * 1e-9 : 0;

    std::printf("external_platform: %s (kind %s) behind cpu.socket, %.3f us simulated\n", preset.c_str(),
                kind->name.c_str(), end.to_seconds() * 1e6);
    const char* idle_names[3] = {"closed row (tRCD + CL + tBURST)", "row hit (CL + tBURST)",
                                 "row conflict (tRP + tRCD + CL + tBURST)"};
    for (int i = 0; i < 3; ++i)
      std::printf("  idle read, %-40s %8.3f ns (preset: %.3f ns)\n", idle_names[i],
                  cpu.idle_latency[i].to_seconds() * 1e9, expected_ns[i]);
    std::printf("  stream: %d requests of %u B, %.2f GB/s of %.2f GB/s peak\n", Initiator::kStreamRequests,
                Initiator::kBytes, stream_gbps, peak_gbps);
    std::printf("  memory.requests %.0f, memory.read_latency mean %.2f ns p99 %.2f ns, row hit rate %.3f\n",
                stat(ctx, "memory.requests"), stat(ctx, "memory.read_latency", "mean"),
                stat(ctx, "memory.read_latency", "p99"), stat(ctx, "memory.row_hit_rate"));
    std::printf("  energy %.4g J (memory.energy.total %.4g J), %.2f pJ/bit DRAM device energy\n", energy_j,
                stat(ctx, "memory.energy.total"), stat(ctx, "memory.energy_per_bit"));

    int failures = 0;
    // The socket's SystemC name is "<component name>.socket".
    failures += check(sc_core::sc_find_object("memory.socket") != nullptr, "the target socket is memory.socket");
    failures += check(cpu.completed == cpu.issued && cpu.issued == 3 + Initiator::kStreamRequests,
                      "every transaction completed");
    failures += check(cpu.failed == 0, "every response TLM_OK_RESPONSE");
    failures += check(stat(ctx, "memory.requests") == cpu.issued, "memory.requests counts them all");
    for (int i = 0; i < 3; ++i)
      failures += check(std::abs(cpu.idle_latency[i].to_seconds() * 1e9 - expected_ns[i]) < 1e-3,
                        std::string("idle read latency, ") + idle_names[i]);
    failures += check(stream_gbps > 0.25 * peak_gbps && stream_gbps <= peak_gbps * 1.0001,
                      "stream bandwidth within (25%, 100%] of the peak");
    const double pj_per_bit = energy_j / (8.0 * static_cast<double>(cpu.stream_bytes)) * 1e12;
    failures += check(energy_j > 0 && pj_per_bit > 1 && pj_per_bit < 1000, "energy positive, 1-1000 pJ per bit moved");
    std::printf("external_platform: %s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
  } catch (const strata::InputError& e) {
    std::fprintf(stderr, "external_platform: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "external_platform: error: %s\n", e.what());
    return 1;
  }
}
