// Builds workloads the way `strata workload info` does: from experiment YAML, through the
// registry, without hardware.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "accelerators/builtin_kinds.h"
#include "sim/app/experiment.h"
#include "sim/registry.h"
#include "sim/sim_context.h"
#include "test_util.h"
#include "workloads/graph_workload.h"

namespace strata::testing {

class WorkloadFixture {
 public:
  WorkloadFixture() { register_builtin_kinds(registry_); }

  // The operator graph of an experiment file's workload.
  const OpGraph& graph_of(const std::string& experiment_path, const std::vector<std::string>& sets = {}) {
    make(experiment_path, sets);
    return workload_->graph();
  }
  const OpGraph& graph_of_yaml(const std::string& yaml, const std::vector<std::string>& sets = {}) {
    return graph_of(dir_.write("exp" + std::to_string(count_++) + ".yaml", yaml), sets);
  }
  GraphWorkload& make(const std::string& experiment_path, const std::vector<std::string>& sets = {}) {
    exp_ = std::make_unique<ResolvedExperiment>(resolve_experiment(experiment_path, sets, registry_));
    ctx_ = std::make_unique<SimContext>(registry_, static_cast<std::uint64_t>(exp_->root.params.integer("seed")), 1e-6);
    owned_ = registry_.make_workload(exp_->root.child("workload"), *ctx_);
    workload_ = dynamic_cast<GraphWorkload*>(owned_.get());
    if (!workload_) throw std::logic_error("not a graph workload");
    return *workload_;
  }
  // The error message building an experiment gives ("" when it builds).
  std::string error_of_yaml(const std::string& yaml) {
    try {
      make(dir_.write("bad" + std::to_string(count_++) + ".yaml", yaml)).graph();
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
  const TempDir& dir() const { return dir_; }

 private:
  Registry registry_;
  TempDir dir_;
  int count_ = 0;
  std::unique_ptr<ResolvedExperiment> exp_;
  std::unique_ptr<SimContext> ctx_;
  std::unique_ptr<Workload> owned_;
  GraphWorkload* workload_ = nullptr;
};

// An experiment running `model` (a preset in configs/models/) through the transformer kind.
inline std::string transformer_yaml(const std::string& model, const std::string& extra = "") {
  return "workload:\n  kind: transformer\n" + extra + "  model:\n    extends: " +
         source_path("configs/models/" + model + ".yaml") + "\n";
}

}  // namespace strata::testing
