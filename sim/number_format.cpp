#include "sim/number_format.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "sim/rounding.h"
#include "sim/text.h"

namespace strata {

namespace {

// How a float encoding spends its all-ones exponent: on infinities and NaN (IEEE), on NaN only
// through the all-ones mantissa (OCP E4M3 "FN"), or on ordinary values (FP6, FP4).
enum class Specials { Ieee, NanOnly, None };

NumberFormat make_float(std::string name, int storage_bits, int e, int m, Specials specials) {
  NumberFormat f;
  f.name = std::move(name);
  f.element_bits = storage_bits;
  f.exponent_bits = e;
  f.mantissa_bits = m;
  f.bias = (1 << (e - 1)) - 1;
  const int top_exponent = (1 << e) - 1 - f.bias;  // exponent of the all-ones field
  switch (specials) {
    case Specials::Ieee:  // the all-ones field is taken, so the largest binade is one lower
      f.max_finite = std::ldexp(2.0 - std::ldexp(1.0, -m), top_exponent - 1);
      f.has_infinity = f.has_nan = true;
      break;
    case Specials::NanOnly:  // the all-ones mantissa of the top binade is NaN
      f.max_finite = std::ldexp(2.0 - std::ldexp(1.0, 1 - m), top_exponent);
      f.has_nan = true;
      break;
    case Specials::None:
      f.max_finite = std::ldexp(2.0 - std::ldexp(1.0, -m), top_exponent);
      break;
  }
  f.min_normal = std::ldexp(1.0, 1 - f.bias);
  f.min_subnormal = std::ldexp(1.0, 1 - f.bias - m);
  return f;
}

NumberFormat make_int(std::string name, int bits) {
  NumberFormat f;
  f.name = std::move(name);
  f.kind = FormatKind::Int;
  f.element_bits = bits;
  f.max_finite = std::ldexp(1.0, bits - 1) - 1;
  f.min_normal = f.min_subnormal = 1;
  return f;
}

// A block format whose elements are encoded like `element`.
NumberFormat make_block(std::string name, const NumberFormat& element, int block_size, std::string scale_format,
                        int tensor_scale_bits = 0) {
  NumberFormat f = element;
  f.name = std::move(name);
  f.kind = FormatKind::Block;
  f.block_size = block_size;
  f.scale_format = std::move(scale_format);
  f.scale_bits = 8;
  f.tensor_scale_bits = tensor_scale_bits;
  return f;
}

std::vector<NumberFormat> build_formats() {
  const NumberFormat e4m3 = make_float("fp8_e4m3", 8, 4, 3, Specials::NanOnly);
  const NumberFormat e5m2 = make_float("fp8_e5m2", 8, 5, 2, Specials::Ieee);
  const NumberFormat e3m2 = make_float("fp6_e3m2", 6, 3, 2, Specials::None);
  const NumberFormat e2m3 = make_float("fp6_e2m3", 6, 2, 3, Specials::None);
  const NumberFormat e2m1 = make_float("fp4_e2m1", 4, 2, 1, Specials::None);

  // OCP MX v1.0 INT8 element: two's complement read as 1.6 fixed point.
  NumberFormat mxint8_element;
  mxint8_element.kind = FormatKind::Int;
  mxint8_element.element_bits = 8;
  mxint8_element.mantissa_bits = 6;
  mxint8_element.max_finite = 127.0 / 64;
  mxint8_element.min_normal = mxint8_element.min_subnormal = 1.0 / 64;
  mxint8_element.int_elements = true;

  return {
      make_float("fp32", 32, 8, 23, Specials::Ieee),
      make_float("tf32", 32, 8, 10, Specials::Ieee),
      make_float("bf16", 16, 8, 7, Specials::Ieee),
      make_float("fp16", 16, 5, 10, Specials::Ieee),
      e4m3,
      e5m2,
      e3m2,
      e2m3,
      e2m1,
      make_int("int16", 16),
      make_int("int8", 8),
      make_int("int4", 4),
      make_int("int2", 2),
      make_block("mxfp8_e4m3", e4m3, 32, "e8m0"),
      make_block("mxfp8_e5m2", e5m2, 32, "e8m0"),
      make_block("mxfp6_e3m2", e3m2, 32, "e8m0"),
      make_block("mxfp6_e2m3", e2m3, 32, "e8m0"),
      make_block("mxfp4", e2m1, 32, "e8m0"),
      make_block("mxint8", mxint8_element, 32, "e8m0"),
      make_block("nvfp4", e2m1, 16, "fp8_e4m3", 32),
      // Last, so the table's older order stands: GNN accelerator studies (GCNAX) run FP64.
      make_float("fp64", 64, 11, 52, Specials::Ieee),
  };
}

const std::vector<std::pair<std::string, std::string>>& aliases() {
  static const std::vector<std::pair<std::string, std::string>> a = {
      {"mxfp8", "mxfp8_e4m3"}, {"mxfp6", "mxfp6_e2m3"}, {"fp4", "fp4_e2m1"}};
  return a;
}

// "fp8_e4m3" -> "FP8 E4M3", the way papers and datasheets write it.
std::string display_name(std::string_view name) {
  std::string out;
  for (char c : name) out += c == '_' ? ' ' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string element_display(const NumberFormat& f) {
  if (f.int_elements)
    return fmt::format("INT{} (implicit 2^-{}, max {:g})", f.element_bits, f.mantissa_bits, f.max_finite);
  return fmt::format("FP{} E{}M{}", f.element_bits, f.exponent_bits, f.mantissa_bits);
}

// Scales in one row of `row_length` elements, and the bits of each.
std::pair<std::int64_t, int> row_scales(const QuantSpec& q, std::int64_t row_length) {
  const NumberFormat& f = *q.format;
  if (f.kind == FormatKind::Block) return {ceil_div(row_length, f.block_size), f.scale_bits};
  if (f.kind == FormatKind::Int && q.granularity == Granularity::Channel) return {1, kChannelScaleBits};
  if (f.kind == FormatKind::Int && q.granularity == Granularity::Group)
    return {ceil_div(row_length, q.group), kChannelScaleBits};
  return {0, 0};
}

int tensor_scale_bits(const QuantSpec& q) {
  if (q.format->kind == FormatKind::Int && q.granularity == Granularity::Tensor) return kTensorScaleBits;
  return q.format->tensor_scale_bits;
}

bool valid_group(long long n) { return n >= 8 && n <= 4096 && (n & (n - 1)) == 0; }

std::string accepted_syntax() {
  std::string names;
  for (const auto& f : number_formats()) names += (names.empty() ? "" : ", ") + f.name;
  return "expected one of " + names +
         ", or an integer format with _pc (per channel) or _g<N> (N a power of two in 8..4096)";
}

}  // namespace

double NumberFormat::bits_per_element() const {
  if (kind != FormatKind::Block) return element_bits;
  return element_bits + static_cast<double>(scale_bits) / block_size;
}

std::string NumberFormat::description() const {
  const std::string title = display_name(name);
  switch (kind) {
    case FormatKind::Float: {
      const char* specials = has_infinity ? "infinities and NaN" : has_nan ? "no infinities" : "no infinities or NaN";
      const std::string storage = element_bits != 1 + exponent_bits + mantissa_bits
                                      ? fmt::format(", stored in {} bits", element_bits)
                                      : std::string();
      return fmt::format("{}: 1-{}-{}, max {:g}, {}{}", title, exponent_bits, mantissa_bits, max_finite, specials,
                         storage);
    }
    case FormatKind::Int:
      return fmt::format("{}: two's complement integer, symmetric range ±{:g}", title, max_finite);
    case FormatKind::Block: {
      const std::string tensor_scale =
          tensor_scale_bits > 0 ? fmt::format(", plus one FP{} scale per tensor", tensor_scale_bits) : std::string();
      return fmt::format("{}: blocks of {} {} elements sharing one {} scale{}, {:g} bits per element", title,
                         block_size, element_display(*this), display_name(scale_format), tensor_scale,
                         bits_per_element());
    }
  }
  return title;
}

const std::vector<NumberFormat>& number_formats() {
  static const std::vector<NumberFormat> formats = build_formats();
  return formats;
}

const NumberFormat* find_number_format(std::string_view name) {
  std::string key = lower(name);
  for (const auto& [alias, target] : aliases())
    if (key == alias) key = target;
  for (const auto& f : number_formats())
    if (f.name == key) return &f;
  return nullptr;
}

std::vector<std::string> number_format_names() {
  std::vector<std::string> names;
  for (const auto& f : number_formats()) names.push_back(f.name);
  for (const auto& a : aliases()) names.push_back(a.first);
  return names;
}

void check_quant_spec(const QuantSpec& q) {
  if (q.format == nullptr) throw std::invalid_argument("quantization spec has no number format");
  if (q.granularity != Granularity::Tensor && q.format->kind != FormatKind::Int)
    throw std::invalid_argument(
        fmt::format("{} takes no per-channel or per-group scales: only integer formats do", q.format->name));
  if (q.granularity == Granularity::Group && !valid_group(q.group))
    throw std::invalid_argument(fmt::format("group size {} is not a power of two in 8..4096", q.group));
}

std::string QuantSpec::name() const {
  if (format == nullptr) return "";
  switch (granularity) {
    case Granularity::Tensor:
      return format->name;
    case Granularity::Channel:
      return format->name + "_pc";
    case Granularity::Group:
      return fmt::format("{}_g{}", format->name, group);
  }
  return format->name;
}

double QuantSpec::bits_per_element(std::int64_t row_length) const {
  check_quant_spec(*this);
  if (row_length < 1) throw std::invalid_argument(fmt::format("row length {} is not positive", row_length));
  const auto [scales, bits] = row_scales(*this, row_length);
  return format->element_bits + static_cast<double>(scales * bits) / static_cast<double>(row_length);
}

std::uint64_t QuantSpec::storage_bytes(std::int64_t elements, std::int64_t row_length) const {
  check_quant_spec(*this);
  if (row_length < 1 || elements < 0 || elements % row_length != 0)
    throw std::invalid_argument(fmt::format("{} elements do not lay out as whole rows of {}", elements, row_length));
  if (elements == 0) return 0;
  const auto [scales, scale_bits] = row_scales(*this, row_length);
  const auto rows = static_cast<std::uint64_t>(elements / row_length);
  const std::uint64_t bits = static_cast<std::uint64_t>(elements) * static_cast<std::uint64_t>(format->element_bits) +
                             rows * static_cast<std::uint64_t>(scales) * static_cast<std::uint64_t>(scale_bits) +
                             static_cast<std::uint64_t>(tensor_scale_bits(*this));
  return (bits + 7) / 8;
}

QuantSpec parse_quant_spec(std::string_view text) {
  const std::string t = lower(trim(text));
  if (const NumberFormat* f = find_number_format(t)) return QuantSpec{f};

  // "<base>_pc" or "<base>_g<N>"; anything else is read as a (misspelt) format name.
  std::string base = t, group;
  QuantSpec q;
  const auto cut = t.rfind('_');
  if (cut != std::string::npos) {
    const std::string suffix = t.substr(cut + 1);
    const bool digits =
        suffix.size() > 1 && suffix[0] == 'g' && suffix.find_first_not_of("0123456789", 1) == std::string::npos;
    if (suffix == "pc" || digits) {
      base = t.substr(0, cut);
      q.granularity = digits ? Granularity::Group : Granularity::Channel;
      if (digits) group = suffix.substr(1);
    }
  }
  q.format = find_number_format(base);
  if (q.format == nullptr) {
    const auto guess = closest_match(base, number_format_names());
    throw std::invalid_argument(fmt::format("unknown quantization \"{}\"{}; {}", text,
                                            guess ? fmt::format(" (did you mean \"{}\"?)", *guess) : std::string(),
                                            accepted_syntax()));
  }
  if (q.format->kind != FormatKind::Int)
    throw std::invalid_argument(fmt::format(
        "quantization \"{}\": {} takes no _pc or _g<N> suffix; only integer formats (int16, int8, int4, int2) do{}",
        text, q.format->name,
        q.format->kind == FormatKind::Block ? fmt::format(", {} carries its own block scales", q.format->name) : ""));
  if (q.granularity == Granularity::Group) {
    // Past 5 digits it is out of range anyway; this keeps stoll from overflowing.
    const long long n = group.size() > 5 ? -1 : std::stoll(group);
    if (!valid_group(n))
      throw std::invalid_argument(
          fmt::format("quantization \"{}\": group size {} is not a power of two in 8..4096", text, group));
    q.group = static_cast<int>(n);
  }
  return q;
}

}  // namespace strata
