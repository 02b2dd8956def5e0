// Component kind `instinfer`: in-storage attention (InstInfer / InstAttention, Pan et al.,
// arXiv 2409.04992, HPCA 2025). A host (`host`: a GPU or NPU, any package_device kind) runs the
// decode step but its attention; computational SSDs (`csds` of them, each a NAND flash
// `csd_flash` and an attention engine of `engine_gflops`, on its own PCIe link `pcie`) hold the
// KV cache and run attention next to it, the heads split evenly over the drives.
//
// The host runs the workload's graph with each attention and KV-cache append replaced by a
// transfer the package interface times (send_recv, the host waiting at it): this component is
// its CollectiveHost. At an attention: the query over PCIe, each drive's share of the KV cache
// read from its flash (SparF's sparse loading reads `kv_read_fraction` of it, as whole pages),
// the products on the engine as the pages arrive, the output back. At an append: the new key
// and value over PCIe into the drive's DRAM buffer (programmed later, off the critical path).
//
// Results: summary.json `latency_s`, `tokens_per_s`, `energy_per_token_j`;
// `hardware.csd.{attention_s, kv_read_bytes}`. Cycle level only.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "accelerators/chiplet/decode_step.h"
#include "accelerators/package/package_device.h"
#include "memory/flash/flash_device.h"
#include "sim/component.h"

namespace strata {

class InstInfer : public Component, public GraphTarget, public CollectiveHost {
 public:
  static KindSpec spec();
  InstInfer(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);
  ~InstInfer() override;

  void load_graph(std::shared_ptr<const OpGraph> graph) override;
  bool graph_finished() const override;
  std::optional<double> graph_progress() const override { return host_graph_target_->graph_progress(); }
  void reached(int device, OpId op) override;
  void finalize(const sc_core::sc_time& end) override;

 private:
  double attention_s(const Operator& op, double now);  // the offloaded attention's seconds from now
  std::uint64_t drive_share(const Tensor& kv) const;   // the bytes of a KV cache one drive holds
  double append_s(const Operator& op);

  RoleChild<PackageDevice> host_;
  GraphTarget* host_graph_target_ = nullptr;
  std::vector<RoleChild<NandFlashDevice>> flashes_;  // driven through their timelines (direct_controller)
  std::vector<std::unique_ptr<class ChipLink>> links_;
  std::shared_ptr<const OpGraph> graph_;  // the workload's
  std::map<OpId, OpId> original_;         // host graph's offloaded operators -> the workload's
  std::map<TensorId, std::uint64_t> kv_base_;  // each KV tensor's region in every drive's flash
  std::uint64_t next_kv_ = 0;
  double read_fraction_ = 0.125, engine_flops_ = 0;
  double tokens_ = 1, attention_s_ = 0;
  std::uint64_t kv_read_bytes_ = 0;
  EnergyEvent* engine_op_ = nullptr;
};

}  // namespace strata
