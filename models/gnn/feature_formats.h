// How GNN accelerators lay node features out in DRAM, and what a row costs in bytes:
//   plain             every value at its format's bits, rows back to back (the ideal packing)
//   adaptive_package  MEGA's Adaptive-Package (HPCA 2024): a row's values at its node's bit-width
//                     in packages of 64, 128 or 192 bits, each with a 5-bit header (2-bit mode,
//                     3-bit bit-width) and never splitting a value; a sparse row adds a bitmap of
//                     its width in bits, kept beside the packages
//   beicsr            SGCN's bitmap-embedded in-place CSR (HPCA 2023): a sparse row is a bitmap of
//                     its width in bits followed by its nonzero values, written in place of the
//                     dense row, so the engine reads the bitmap and the nonzeros only
// The figures of the formats are the third-party reading of MEGA and SGCN
// (../shared/reference/gnn-accelerators.md sections 6 and 7, tagged [M]); docs/gnn.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace strata {

enum class FeatureFormat { Plain, AdaptivePackage, Beicsr };
std::optional<FeatureFormat> find_feature_format(std::string_view name);

inline constexpr int kPackageHeaderBits = 5;  // 2-bit mode + 3-bit bit-width

// Bits of the packages holding `values` values of `bits` bits each: as many 192-bit packages as
// the values fill, then the smallest package that holds the rest.
std::uint64_t adaptive_package_bits(std::int64_t values, int bits);

// Bytes of one row in the format: `values` stored values (the nonzeros of a sparse row, else the
// width) of `bits` bits each, `width` the row's length (the bitmap's bits when `sparse`).
double feature_row_bytes(FeatureFormat f, std::int64_t values, double bits, std::int64_t width, bool sparse);

}  // namespace strata
