#include "memory/request_player_workload.h"

#include <fmt/format.h>

#include "memory/trace/memory_trace_reader.h"
#include "memory/trace/synthetic_analytic.h"
#include "memory/trace/synthetic_requests.h"
#include "sim/ports.h"

namespace strata {

void RequestPlayerWorkload::add_player_params(KindSpec& s) {
  s.with_clock();  // the clock the requests' cycles count; at most one request issues per cycle
  s.add(param::integer("max_outstanding", "requests in flight at once; later ones wait").def("16").range("1", "1048576"));
  s.add(param::quantity("request_bytes", UnitFamily::Size, "size of requests that state none")
            .def("64 B")
            .range("1 B", "1 MiB"));
}

void RequestPlayerWorkload::bind(Component& hardware) {
  target_ = dynamic_cast<MemoryTarget*>(&hardware);
  target_config_ = &hardware.config();
  if (!target_) {
    throw InputError(cfg_.loc, "workload.kind",
                     fmt::format("{} needs hardware that accepts memory requests ({}); hardware kind '{}' does not",
                                 cfg_.spec->name, kMemoryTargetRole, hardware.config().spec->name));
  }
  player_ = std::make_unique<TracePlayer>("workload", cfg_, ctx_, make_source(),
                                          static_cast<size_t>(cfg_.params.integer("max_outstanding")));
  bind_at(ctx_, player_->initiator_socket(), target_->target_socket(), "workload");

  ctx_.report("latency_s", "workload.completion_time");
  ctx_.report("requests", "workload.latency", "count");
  ctx_.report("bytes", "workload.bytes");
  ctx_.report("bandwidth_gbps", "workload.bandwidth");
  ctx_.report("avg_latency_ns", "workload.latency", "mean");
  ctx_.report("p50_latency_ns", "workload.latency", "p50");
  ctx_.report("p99_latency_ns", "workload.latency", "p99");
  ctx_.report("avg_read_latency_ns", "workload.read_latency", "mean");
  ctx_.report("p99_read_latency_ns", "workload.read_latency", "p99");
}

std::optional<double> RequestPlayerWorkload::progress() const {
  if (!player_) return std::nullopt;
  return player_->progress();
}

KindSpec MemoryTraceWorkload::spec() {
  KindSpec s;
  s.name = "memory_trace";
  s.description = "replay a memory-address trace (Strata's, Ramulator's, DRAMsim3's or DRAMSys's) over TLM-2.0";
  s.add(param::path("path", "trace file; relative paths are relative to the config file that names them"));
  s.add(param::choice("format", {"auto", "canonical", "ramulator", "dramsim3", "stl"},
                      "canonical: '<cycle> <R|W> <hex address> [<bytes>]'; ramulator: 'LD|ST <address>' (back to "
                      "back); dramsim3: '<hex address> READ|WRITE <cycle>'; stl (DRAMSys): '<cycle>: [(<bytes>)] "
                      "read|write <hex address>'; auto: by extension (.stl/.rstl stl, .ldst ramulator, "
                      ".ds3/.dramsim3 dramsim3, else canonical)")
            .def("auto"));
  add_player_params(s);
  return s;
}

std::unique_ptr<RequestSource> MemoryTraceWorkload::make_source() {
  const Params& p = cfg_.params;
  const std::string& format = p.string("format");
  const TraceFormat f = format == "auto" ? trace_format_from_extension(p.path("path")) : parse_trace_format(format);
  return std::make_unique<MemoryTraceReader>(p.path("path"), static_cast<std::uint32_t>(p.quantity("request_bytes")), f);
}

KindSpec MemorySyntheticWorkload::spec() {
  KindSpec s;
  s.name = "memory_synthetic";
  s.description = "seeded synthetic memory requests: random, stream or strided, with a read/write mix and rate";
  s.add(param::choice("pattern", {"random", "stream", "strided"},
                      "random: uniform over the span; stream: consecutive; strided: every `stride` bytes"));
  s.add(param::integer("requests", "how many requests").range("1", "1000000000000"));
  s.add(param::quantity("base", UnitFamily::Size, "first address of the span").def("0 B").at_least("0 B"));
  s.add(param::quantity("span", UnitFamily::Size, "bytes the addresses range over; stream and strided wrap in it")
            .def("1 GiB")
            .range("1 B", "1024 PiB"));
  s.add(param::quantity("stride", UnitFamily::Size, "distance between strided requests").def("0 B").at_least("0 B"));
  s.add(param::real("read_fraction", "share of reads; the rest are writes").def("1").range("0", "1"));
  s.add(param::quantity("rate", UnitFamily::Bandwidth, "offered load; 0 B/s issues back to back")
            .def("0 B/s")
            .at_least("0 B/s"));
  add_player_params(s);
  return s;
}

double MemorySyntheticWorkload::evaluate_analytic() {
  const SyntheticAnalytic a =
      evaluate_synthetic(config(), static_cast<std::uint64_t>(cfg_.params.integer("max_outstanding")),
                         analytic_memory(*target_, *target_config_));
  player_->account_analytic(a.reads, a.writes, a.bytes, a.latency_s, a.outstanding, a.end_s);
  return a.end_s;
}

std::unique_ptr<RequestSource> MemorySyntheticWorkload::make_source() {
  try {
    return std::make_unique<SyntheticRequests>(config());
  } catch (const std::invalid_argument& e) {
    throw InputError(cfg_.loc, cfg_.path, e.what());
  }
}

SyntheticRequestsConfig MemorySyntheticWorkload::config() const {
  const Params& p = cfg_.params;
  SyntheticRequestsConfig c;
  c.pattern = parse_synthetic_pattern(p.string("pattern"));
  c.count = static_cast<std::uint64_t>(p.integer("requests"));
  c.request_bytes = static_cast<std::uint32_t>(p.quantity("request_bytes"));
  c.base = static_cast<std::uint64_t>(p.quantity("base"));
  c.span = static_cast<std::uint64_t>(p.quantity("span"));
  c.stride = static_cast<std::uint64_t>(p.quantity("stride"));
  c.read_fraction = p.real("read_fraction");
  c.rate = p.quantity("rate");
  c.clock_hz = p.quantity("clock");
  // The run's seed, mixed with the stream name so other random streams stay independent.
  c.seed = ctx_.rng("workload.requests")();
  return c;
}

}  // namespace strata
