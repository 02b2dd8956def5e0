// Number formats: the one vocabulary for data types across Strata (storage size, scale
// layout, the element encoding the numerics emulator rounds to), and the per-tensor
// quantization choice ("int4_g128", "mxfp4") that configs and operator graphs name. It lives
// in sim/ so that every layer reads the same names and bits (a model's per-format rates are
// parsed against it by the schema, param::format_rates); the numerics emulation that rounds
// to these encodings is workloads/formats/.
//
// Conventions (all rounding is saturating, as in the OCP "SAT" conversion mode):
//  - Float formats are sign + exponent + mantissa with IEEE-style subnormals. FP8 E4M3 is the
//    OCP "FN" variant (no infinities, only S.1111.111 is NaN, max 448); E5M2 is IEEE-like (max
//    57344). FP6 E3M2 (max 28), FP6 E2M3 (max 7.5) and FP4 E2M1 (max 6) have neither
//    infinities nor NaN. TF32 is 1-8-10 in a 32-bit container, so it stores 32 bits.
//  - Int formats are symmetric two's complement: INTn holds ±(2^(n-1)-1); the most negative
//    code is left unused so that a scale maps amax to both ends alike.
//  - Block formats share one scale per block of elements along the reduction axis. MX
//    (OCP Microscaling Formats v1.0): 32 elements, E8M0 (power-of-two) scale, 8 bits.
//    MXINT8 elements are 8-bit two's complement read with an implicit 2^-6 (1.6 fixed point,
//    ±1.984375; -2 is left unused as for Int). NVFP4 (NVIDIA, Blackwell): 16 E2M1 elements per
//    FP8 E4M3 scale, plus one FP32 scale per tensor. A Block format's encoding fields describe
//    its element before scaling.
//
// Sources: OCP Microscaling Formats (MX) v1.0 specification (2023); OCP 8-bit Floating Point
// Specification (OFP8) rev 1.0; NVIDIA, "Introducing NVFP4 for Efficient and Accurate
// Low-Precision Inference" (2025); IEEE 754-2019 for FP64/FP32/FP16; Micikevicius et al. 2022
// (FP8 formats for deep learning).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

enum class FormatKind { Float, Int, Block };  // Block = a shared scale per block of elements

struct NumberFormat {
  std::string name;  // canonical lower-case name
  FormatKind kind = FormatKind::Float;
  int element_bits = 0;  // storage bits of one element, scales excluded
  // Element encoding for Float, and for the elements of float Block formats. For integer
  // elements (Int, MXINT8) mantissa_bits counts the fraction bits (0 for Int, 6 for MXINT8).
  int exponent_bits = 0, mantissa_bits = 0, bias = 0;
  double max_finite = 0;  // largest finite element value (for Int: 2^(bits-1)-1)
  // Smallest positive normal and subnormal element values; for integer elements both are the
  // step between codes (1 for Int, 2^-6 for MXINT8).
  double min_normal = 0, min_subnormal = 0;
  bool has_infinity = false, has_nan = false;  // of the element encoding
  bool int_elements = false;                   // Block formats whose elements are integers (MXINT8)
  int block_size = 0;                          // Block: elements per shared scale (32 for MX, 16 for NVFP4)
  std::string scale_format;                    // Block: "e8m0" (MX) or "fp8_e4m3" (NVFP4)
  int scale_bits = 0;                          // Block: bits of one shared scale (8)
  int tensor_scale_bits = 0;                   // NVFP4: one FP32 scale per tensor (32)

  // element_bits + scale_bits / block_size (MXFP4 4.25, NVFP4 4.5, MXFP8 8.25); the NVFP4
  // per-tensor scale is not per element and is left out.
  double bits_per_element() const;
  // One line, e.g. "FP8 E4M3: 1-4-3, max 448, no infinities".
  std::string description() const;
};

// Every format, in this order: fp32, tf32, bf16, fp16, fp8_e4m3, fp8_e5m2, fp6_e3m2,
// fp6_e2m3, fp4_e2m1, int16, int8, int4, int2, mxfp8_e4m3, mxfp8_e5m2, mxfp6_e3m2,
// mxfp6_e2m3, mxfp4, mxint8, nvfp4, fp64.
const std::vector<NumberFormat>& number_formats();

// The format named `name` (case-insensitive), or nullptr. Aliases: mxfp8 -> mxfp8_e4m3,
// mxfp6 -> mxfp6_e2m3, fp4 -> fp4_e2m1.
const NumberFormat* find_number_format(std::string_view name);

// Every accepted name, canonical names first, then aliases (for messages and `strata list`).
std::vector<std::string> number_format_names();

enum class Granularity { Tensor, Channel, Group };

// A quantization choice for one tensor: a format plus, for integer formats, the scale
// granularity. Text syntax: "<format>" (per tensor; Int formats then carry one FP32 scale per
// tensor, Float formats are a plain cast without a scale), "<int>_pc" (per channel: one FP16 scale per row of
// the reduction axis), "<int>_g<N>" (groups of N elements along the reduction axis, one FP16
// scale each, N a power of two in 8..4096). Block formats carry their own scales, so a suffix on
// any non-Int format is an error.
struct QuantSpec {
  const NumberFormat* format = nullptr;
  Granularity granularity = Granularity::Tensor;
  int group = 0;  // Group: elements per scale

  // Canonical text that parse_quant_spec reads back: "int4_g128", "int8_pc", "mxfp4"; empty
  // without a format.
  std::string name() const;
  // Element bits plus the scale bits of one row of `row_length` elements spread over it. A
  // partial last group or block still has its own scale. Per-tensor scales (Int per tensor,
  // NVFP4's FP32) are left out. Throws std::invalid_argument for row_length < 1.
  double bits_per_element(std::int64_t row_length) const;
  // Whole bytes to store `elements` elements laid out as rows of `row_length` (the reduction
  // axis), all scales included, the total rounded up to a byte; per-tensor scales count once.
  // Throws std::invalid_argument unless row_length >= 1 and elements is a non-negative multiple
  // of it.
  std::uint64_t storage_bytes(std::int64_t elements, std::int64_t row_length) const;

  bool operator==(const QuantSpec& o) const {
    return format == o.format && granularity == o.granularity && group == o.group;
  }
  bool operator!=(const QuantSpec& o) const { return !(*this == o); }
};

// Reads the text syntax above (case-insensitive, surrounding blanks ignored). Throws
// std::invalid_argument with a one-line message saying what is accepted, with a "did you
// mean" for a misspelt format name.
QuantSpec parse_quant_spec(std::string_view text);

// Throws std::invalid_argument for a spec no text could produce (no format, a per-channel or
// per-group scale on a non-Int format, a bad group size); the functions taking a QuantSpec
// call it first.
void check_quant_spec(const QuantSpec& q);

// Bits of the scale of an Int format quantized per channel or per group (FP16), per tensor (FP32).
inline constexpr int kChannelScaleBits = 16;
inline constexpr int kTensorScaleBits = 32;

}  // namespace strata
