// Component kind `cambricon_llm`: LLM decode on an NPU chiplet beside a NAND flash that computes
// next to its pages (Cambricon-LLM, Yu, Liang et al., MICRO 2024). The NPU chiplet holds the
// flash controller; a die-to-die link (`link`, a chip_link) joins it to the flash (`flash`, the
// nand_flash model); the KV cache lives in a side DRAM (`kv_memory`, LPDDR5X in the presets)
// behind a DMA engine. Weights (INT8, or INT4 for W4A16: twice the weights a page) live in flash.
//
// It runs the transformer workload's operator graph, operators one after another:
//   - a GEMV or GEMM with weights: the weights' pages split between the flash's compute cores
//     and the NPU (flash_tiling.h: the share alpha by the paper's rule, or `split`), issued
//     into the flash timeline at once, read-compute rounds (one page a core, the input slice
//     broadcast on each channel, the partial results back) interleaved with the NPU's sliced
//     page reads, which fill the channels' idle time; the NPU multiplies its pages as they
//     arrive. The operator ends when the last of both is done;
//   - attention: the KV cache read from kv_memory (cycle-level DRAM through the DMA), the
//     products and softmax on the NPU; a KV append writes the new key and value there;
//   - an embedding: its row read from flash; norms and element-wise operators on the NPU's
//     vector lanes.
// Every byte between the flash and the NPU crosses the link (energy per bit by packaging).
//
// Results: summary.json `latency_s` (the step), `tokens_per_s` (the step's tokens over its
// latency), `energy_per_token_j`; breakdown `hardware.breakdown.{weights_s, attention_s,
// vector_s}` and `hardware.flash_pages_computed` / `flash_pages_read`. Keys in spec().
#pragma once

#include <memory>
#include <vector>

#include "accelerators/chiplet/decode_step.h"
#include "accelerators/chiplet/flash_tiling.h"
#include "memory/flash/flash_device.h"
#include "sim/component.h"
#include "sim/device_power.h"
#include "sim/ports.h"
#include "workloads/graph_workload.h"

namespace strata {

class CambriconLlm : public Component, public GraphTarget {
 public:
  static KindSpec spec();
  CambriconLlm(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);
  ~CambriconLlm() override;

  void load_graph(std::shared_ptr<const OpGraph> graph) override;
  bool graph_finished() const override { return finished_; }
  std::optional<double> graph_progress() const override;
  void finalize(const sc_core::sc_time& end) override;
  // The NPU's MACs and vector lanes busy every cycle.
  double peak_dynamic_j_per_cycle() const override;

 private:
  void run_graph();
  // Each returns the operator's seconds from now (it waits for them).
  double weights_op(const Operator& op, const Tensor& weights, std::uint64_t flash_base);
  double attention_op(const Operator& op);
  double dram_transfer(std::uint64_t bytes, bool write);
  void link_bytes(std::uint64_t bytes);

  RoleChild<NandFlashDevice> flash_;  // driven through its timeline (direct_controller)
  std::unique_ptr<class ChipLink> link_;
  RoleChild<MemoryTarget> kv_;
  std::unique_ptr<class DmaEngine> dma_;
  FlashTile tile_;
  double alpha_ = 0;
  double npu_macs_per_s_ = 0, vector_per_s_ = 0, core_macs_per_s_ = 0;
  std::shared_ptr<const OpGraph> graph_;
  std::size_t done_ = 0;
  bool finished_ = false;
  double latency_s_ = 0, tokens_ = 1;
  double weights_s_ = 0, attention_s_ = 0, vector_s_ = 0;
  std::uint64_t pages_computed_ = 0, pages_read_ = 0, kv_bytes_ = 0;
  EnergyEvent *npu_mac_, *vector_op_, *core_mac_;
  std::unique_ptr<DevicePower> power_;  // the NPU chiplet's clock domain
};

}  // namespace strata
