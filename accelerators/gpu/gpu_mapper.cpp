#include "accelerators/gpu/gpu_mapper.h"

#include <cstdio>

#include <fmt/format.h>

#include "sim/input_error.h"

namespace strata {

const KindSpec& gpu_kernels_spec() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "kernels";
    s.category = "section";
    s.description =
        "how the mapper lowers operator graphs to kernels (gpu_mapper.h); empty or 0: the tile search's choice";
    s.add(param::string("gemm_tile", "the GEMM CTA tile as MxNxK, e.g. 128x256x64").def(""));
    s.add(param::integer("gemm_stages", "shared-memory stages of the GEMM main loop").def("0").range("0", "8"));
    s.add(param::integer("gemm_split_k", "K slices of a GEMM (parallel split-K)").def("0").range("0", "64"));
    s.add(param::integer("gemm_cluster", "CTAs per cluster along M of a tma_wgmma GEMM (2: B multicast)")
              .def("0")
              .range("0", "2"));
    s.add(param::choice("gemm_main_loop", {"auto", "tma_wgmma", "cp_async_mma"},
                        "auto: the GPU's latest (tma_wgmma with wgmma and TMA, else cp_async_mma)")
              .def("auto"));
    s.add(param::choice("attention", {"auto", "flash2", "flash3"},
                        "prefill attention's kernel (attention_kernel.h): FlashAttention-2's mma.sync kernel or "
                        "FlashAttention-3's TMA and wgmma one; auto: flash3 on a GPU with wgmma and TMA for heads "
                        "of at most 256, else flash2; decode attention (one query) takes FlashAttention-2's split-KV "
                        "path either way")
              .def("auto"));
    s.add(param::choice("spmm_partition", {"auto", "row_split", "merge"},
                        "how an SpMM's rows are dealt to warps (sparse_kernel.h); auto: merge when the longest row "
                        "exceeds 8x the mean")
              .def("auto"));
    s.add(param::boolean("fuse",
                         "fuse adjacent element-wise and normalisation operators into one kernel, merge "
                         "projections of one input into one product, and apply a product's activation "
                         "(gelu, silu, relu) in its epilogue, as vLLM's fused_add_rms_norm, silu_and_mul, "
                         "qkv_proj and gate_up_proj and cuBLASLt's GELU_BIAS epilogue do")
              .def("true"));
    s.add(param::choice(
              "launch", {"stream", "graph", "eager"},
              "how the host launches the graph's kernels. stream: asynchronous launches queued ahead, each "
              "kernel waiting the gpu's kernel_launch after its turn (as Accel-Sim charges it); graph: a CUDA "
              "graph's replay, the front end holding every launch, so only the first kernel waits kernel_launch "
              "and each later one starts as the one before ends; eager: a framework's per-operator dispatch, the "
              "host submitting a kernel every host_dispatch, so the GPU idles (host-bound) while its kernels are "
              "shorter than that")
              .def("stream")
              .hash_only_when_changed());
    // 7.6 us: PyTorch 2.11's floor a call, a trivial add launched back to back on the measured
    // H100's host [V, ../shared/reference/gpu-silicon.md, "PyTorch's own per-call floor"].
    s.add(param::quantity("host_dispatch", UnitFamily::Time,
                          "launch: eager: the host's time to dispatch one kernel (the framework's operator "
                          "dispatch and the launch call)")
              .def("7.6 us")
              .range("0 s", "1 s")
              .hash_only_when_changed());
    return s;
  }();
  return spec;
}

GpuKernelChoices read_kernel_choices(const ValidatedNode& kernels) {
  const Params& p = kernels.params;
  GpuKernelChoices choices;
  GemmConstraints& c = choices.gemm;
  const std::string tile = p.string("gemm_tile");
  if (!tile.empty()) {
    char rest = 0;
    if (std::sscanf(tile.c_str(), "%dx%dx%d%c", &c.tile_m, &c.tile_n, &c.tile_k, &rest) != 3 || c.tile_m <= 0 ||
        c.tile_n <= 0 || c.tile_k <= 0 || c.tile_m > 256 || c.tile_n > 256 || c.tile_k > 256)
      throw InputError(p.where("gemm_tile"), kernels.path + ".gemm_tile",
                       fmt::format("'{}': write the tile as MxNxK, each 1 to 256, e.g. 128x256x64", tile));
  }
  c.stages = static_cast<int>(p.integer("gemm_stages"));
  c.split_k = static_cast<int>(p.integer("gemm_split_k"));
  c.cluster_m = static_cast<int>(p.integer("gemm_cluster"));
  if (p.string("gemm_main_loop") != "auto") c.main_loop = p.string("gemm_main_loop");
  const std::string spmm = p.string("spmm_partition");
  choices.spmm = spmm == "row_split" ? SpmmPartition::RowSplit
                 : spmm == "merge"   ? SpmmPartition::Merge
                                     : SpmmPartition::Auto;
  choices.fuse = p.flag("fuse");
  const std::string launch = p.string("launch");
  choices.launch = launch == "graph"   ? GpuLaunchMode::Graph
                   : launch == "eager" ? GpuLaunchMode::Eager
                                       : GpuLaunchMode::Stream;
  choices.host_dispatch_s = p.quantity("host_dispatch");
  const std::string attention = p.string("attention");
  choices.attention = attention == "flash2"   ? AttentionKernel::Flash2
                      : attention == "flash3" ? AttentionKernel::Flash3
                                              : AttentionKernel::Auto;
  return choices;
}

}  // namespace strata
