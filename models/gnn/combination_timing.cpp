#include "models/gnn/combination_timing.h"

#include "models/systolic/systolic_timing.h"
#include "sim/rounding.h"

namespace strata {

std::optional<CombinationStyle> find_combination_style(std::string_view name) {
  if (name == "mac_array") return CombinationStyle::MacArray;
  if (name == "systolic") return CombinationStyle::Systolic;
  if (name == "bit_serial") return CombinationStyle::BitSerial;
  return std::nullopt;
}

std::uint64_t combination_cycles(const CombinationEngineSpec& e, std::int64_t m, std::int64_t n, std::int64_t k,
                                 std::int64_t nonzeros, int operand_bits) {
  if (m <= 0 || n <= 0 || k <= 0) return 0;
  const auto products = static_cast<std::uint64_t>(nonzeros) * static_cast<std::uint64_t>(n);
  switch (e.style) {
    case CombinationStyle::MacArray: return ceil_div(products, static_cast<std::uint64_t>(e.macs));
    case CombinationStyle::BitSerial:
      return ceil_div(products, static_cast<std::uint64_t>(e.macs)) *
             ceil_div(static_cast<std::uint64_t>(operand_bits), static_cast<std::uint64_t>(e.bits_per_cycle));
    case CombinationStyle::Systolic: {
      // X's rows split evenly over the modules, which run in parallel.
      const std::int64_t rows_per_module = ceil_div(m, e.modules);
      SystolicConfig cfg;
      cfg.rows = e.rows;
      cfg.cols = e.cols;
      cfg.dataflow = Dataflow::WeightStationary;
      return systolic_gemm(cfg, rows_per_module, n, k).cycles;
    }
  }
  return 0;
}

}  // namespace strata
