#include "accelerators/chiplet/flash_tiling.h"

#include <algorithm>
#include <cmath>

namespace strata {

int compute_cores(const FlashSpec& f) { return f.dies(); }

FlashTile hardware_aware_tile(const FlashSpec& f) {
  const double per_channel = static_cast<double>(compute_cores(f)) / f.channels;
  const double h = std::sqrt(per_channel * static_cast<double>(f.page_bytes));
  FlashTile t;
  t.rows = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(std::exp2(std::round(std::log2(h))))));
  t.cols = static_cast<std::int64_t>(f.channels) * t.rows;
  return t;
}

FlashSplit flash_split(const FlashSpec& f, const FlashTile& tile) {
  FlashSplit s;
  const double bw = f.bus_bytes_per_s, channels = f.channels;
  s.t_rc = f.t_read + static_cast<double>(tile.cols) / (channels * bw);
  s.rate_rc = (static_cast<double>(tile.rows) + static_cast<double>(tile.cols) / channels) / (f.t_read * bw);
  s.t_r = static_cast<double>(f.page_bytes) / (std::max(1e-9, 1 - s.rate_rc) * bw);
  s.alpha = s.t_r / (s.t_r + s.t_rc);
  const double per_channel = static_cast<double>(compute_cores(f)) / channels;
  s.alpha_balanced = per_channel * s.t_r / (per_channel * s.t_r + s.t_rc);
  return s;
}

}  // namespace strata
