#include "workloads/op_trace_workload.h"

#include "workloads/opgraph/opgraph_jsonl.h"

namespace strata {

KindSpec OpTraceWorkload::spec() {
  KindSpec s;
  s.name = "op_trace";
  s.description = "an operator graph from a JSON Lines trace (strata-opgraph version 1)";
  s.add(param::path("path", "the trace; relative paths are relative to the config file that names them"));
  return s;
}

// Read at construction, so a bad trace fails before anything is elaborated.
OpTraceWorkload::OpTraceWorkload(const ValidatedNode& cfg, SimContext& ctx) : GraphWorkload(cfg, ctx) { graph(); }

OpGraph OpTraceWorkload::build() const { return read_opgraph_jsonl(cfg_.params.path("path")); }

}  // namespace strata
