#include "models/gnn/feature_formats.h"

#include <algorithm>
#include <cmath>

namespace strata {

std::optional<FeatureFormat> find_feature_format(std::string_view name) {
  if (name == "plain") return FeatureFormat::Plain;
  if (name == "adaptive_package") return FeatureFormat::AdaptivePackage;
  if (name == "beicsr") return FeatureFormat::Beicsr;
  return std::nullopt;
}

std::uint64_t adaptive_package_bits(std::int64_t values, int bits) {
  if (values <= 0) return 0;
  bits = std::max(1, bits);
  const auto holds = [bits](int package) { return static_cast<std::int64_t>((package - kPackageHeaderBits) / bits); };
  // A value wider than a package's payload cannot be packed; such rows take one 192-bit package
  // per value (not a case the 1-8-bit formats reach).
  const std::int64_t per_large = std::max<std::int64_t>(1, holds(192));
  std::uint64_t total = static_cast<std::uint64_t>(values / per_large) * 192;
  const std::int64_t rest = values % per_large;
  if (rest > 0) total += rest <= holds(64) ? 64 : rest <= holds(128) ? 128 : 192;
  return total;
}

double feature_row_bytes(FeatureFormat f, std::int64_t values, double bits, std::int64_t width, bool sparse) {
  const double bitmap = sparse ? std::ceil(static_cast<double>(width) / 8) : 0;
  switch (f) {
    case FeatureFormat::AdaptivePackage:
      return static_cast<double>(adaptive_package_bits(values, static_cast<int>(std::ceil(bits)))) / 8 + bitmap;
    case FeatureFormat::Beicsr:
      return sparse ? bitmap + static_cast<double>(values) * bits / 8 : static_cast<double>(values) * bits / 8;
    case FeatureFormat::Plain:
      break;
  }
  return static_cast<double>(values) * bits / 8;
}

}  // namespace strata
