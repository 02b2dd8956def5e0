#include "memory/memory_trace_workload.h"

#include <fmt/format.h>

#include "sim/ports.h"

namespace strata {

KindSpec MemoryTraceWorkload::spec() {
  KindSpec s;
  s.name = "memory_trace";
  s.description = "replay a memory-address trace through a TLM-2.0 front end";
  s.add(param::path("path", "trace file; relative paths are relative to the config file that names them"));
  s.add(param::choice("format", {"canonical"},
                      "trace format; canonical: '<cycle> <R|W> <hex address> [<bytes>]' per line, '#' comments")
            .def("canonical"));
  s.with_clock();  // the clock the trace's cycles count
  s.add(param::integer("max_outstanding", "requests in flight at once; later ones wait").def("16").range("1", "1048576"));
  s.add(param::quantity("request_bytes", UnitFamily::Size, "size of requests whose line gives none")
            .def("64 B")
            .range("1 B", "1 MiB"));
  return s;
}

MemoryTraceWorkload::MemoryTraceWorkload(const ValidatedNode& cfg, SimContext& ctx) : cfg_(cfg), ctx_(ctx) {}

void MemoryTraceWorkload::bind(Component& hardware) {
  auto* target = dynamic_cast<MemoryTarget*>(&hardware);
  if (!target) {
    throw InputError(cfg_.loc, "workload.kind",
                     fmt::format("memory_trace needs hardware that accepts memory requests ({}); hardware kind '{}' "
                                 "does not",
                                 kMemoryTargetRole, hardware.config().spec->name));
  }
  const Params& p = cfg_.params;
  auto reader = std::make_unique<MemoryTraceReader>(p.path("path"), static_cast<std::uint32_t>(p.quantity("request_bytes")));
  player_ = std::make_unique<TracePlayer>("workload", cfg_, ctx_, std::move(reader),
                                          static_cast<size_t>(p.integer("max_outstanding")));
  player_->initiator_socket().bind(target->target_socket());

  ctx_.report("latency_s", "workload.completion_time");
  ctx_.report("requests", "workload.latency", "count");
  ctx_.report("bytes", "workload.bytes");
  ctx_.report("bandwidth_gbps", "workload.bandwidth");
  ctx_.report("avg_latency_ns", "workload.latency", "mean");
  ctx_.report("p50_latency_ns", "workload.latency", "p50");
  ctx_.report("p99_latency_ns", "workload.latency", "p99");
  ctx_.report("avg_read_latency_ns", "workload.read_latency", "mean");
}

std::optional<double> MemoryTraceWorkload::progress() const {
  if (!player_) return std::nullopt;
  return player_->progress();
}

}  // namespace strata
