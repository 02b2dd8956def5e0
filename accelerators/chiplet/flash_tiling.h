// Cambricon-LLM's hardware-aware tiling and its split of a weight GEMV between the flash and the
// NPU (Yu, Liang et al., MICRO 2024; ../shared/reference/chiplet-flash.md section 2.3):
//   a weight matrix is cut into request tiles H_req x W_req, each one read-compute request spread
//   over every compute core (one page per core), the input vector broadcast to a channel's cores;
//   the transfer is smallest at H_req = sqrt(cores_per_channel x page), W_req = channels x H_req;
//   the flash computes the share alpha of the weights, the NPU the rest from sliced page reads
//   that fill the channels' idle time:
//     t_rc    = tR + W_req / (channels x bw)                     one read-compute round
//     rate_rc = (H_req + W_req / channels) / (tR x bw)            the channel time a round takes
//     t_r     = page / ((1 - rate_rc) x bw)                        a page read in what is left
//     alpha   = t_r / (t_r + t_rc)
// (the forms of the third-party reproduction, which agree with the paper's text [M]). That alpha
// compares one core's round with one page read; a channel has cores_per_channel cores, each
// taking a page a round, so the shares that finish together are
//     alpha_balanced = cores_per_channel x t_r / (cores_per_channel x t_r + t_rc)
// (0.69 for S, 0.90 for L), which is what the paper's reported speeds need (docs/chiplet-flash.md).
// SystemC-free: the cambricon_llm kind and its tests use these.
#pragma once

#include <cstdint>

#include "memory/flash/flash_timeline.h"

namespace strata {

struct FlashTile {
  std::int64_t rows = 0, cols = 0;  // H_req x W_req (INT8 weights: one byte each)
};

int compute_cores(const FlashSpec& f);  // one a die
// The rule's tile, H_req rounded to the nearest power of two in log2, halves up (S: 256 x 2048;
// M: 362 -> 512; L: 512 x 16384).
FlashTile hardware_aware_tile(const FlashSpec& f);

struct FlashSplit {
  double t_rc = 0, rate_rc = 0, t_r = 0, alpha = 0, alpha_balanced = 0;
};
FlashSplit flash_split(const FlashSpec& f, const FlashTile& tile);

}  // namespace strata
