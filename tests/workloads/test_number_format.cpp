// The format table against the published encodings, bits and bytes with scales, and the text
// syntax of a quantization choice.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/number_format.h"
#include "workloads/number_format_test_util.h"

using strata::find_number_format;
using strata::FormatKind;
using strata::Granularity;
using strata::number_formats;
using strata::NumberFormat;
using strata::testing::fmt_of;
using strata::parse_quant_spec;
using strata::QuantSpec;

namespace {

// The message of the std::invalid_argument that parse_quant_spec throws for `text`.
std::string parse_error(const std::string& text) {
  try {
    parse_quant_spec(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(NumberFormat, TableOrderIsStable) {
  std::vector<std::string> names;
  for (const auto& f : number_formats()) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "fp32",       "tf32",       "bf16",       "fp16",  "fp8_e4m3", "fp8_e5m2", "fp6_e3m2",
                       "fp6_e2m3",   "fp4_e2m1",   "int16",      "int8",  "int4",     "int2",     "mxfp8_e4m3",
                       "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8",   "nvfp4",    "fp64"}));
}

TEST(NumberFormat, LargestFiniteValues) {
  EXPECT_EQ(fmt_of("fp8_e4m3").max_finite, 448);
  EXPECT_EQ(fmt_of("fp8_e5m2").max_finite, 57344);
  EXPECT_EQ(fmt_of("fp6_e3m2").max_finite, 28);
  EXPECT_EQ(fmt_of("fp6_e2m3").max_finite, 7.5);
  EXPECT_EQ(fmt_of("fp4_e2m1").max_finite, 6);
  EXPECT_EQ(fmt_of("fp16").max_finite, 65504);
  EXPECT_EQ(fmt_of("bf16").max_finite, 255 * std::ldexp(1.0, 120));  // 0x7F7F
  EXPECT_EQ(fmt_of("bf16").max_finite, 3.3895313892515355e38);
  EXPECT_EQ(fmt_of("tf32").max_finite, 2047 * std::ldexp(1.0, 117));
  EXPECT_EQ(fmt_of("fp32").max_finite, std::numeric_limits<float>::max());
  EXPECT_EQ(fmt_of("int16").max_finite, 32767);
  EXPECT_EQ(fmt_of("int8").max_finite, 127);
  EXPECT_EQ(fmt_of("int4").max_finite, 7);
  EXPECT_EQ(fmt_of("int2").max_finite, 1);
  EXPECT_EQ(fmt_of("mxint8").max_finite, 1.984375);  // 127 · 2^-6
  EXPECT_EQ(fmt_of("mxfp4").max_finite, 6);
  EXPECT_EQ(fmt_of("nvfp4").max_finite, 6);
  EXPECT_EQ(fmt_of("mxfp8_e5m2").max_finite, 57344);
}

TEST(NumberFormat, SmallestNormalAndSubnormalValues) {
  EXPECT_EQ(fmt_of("fp8_e4m3").min_subnormal, std::ldexp(1.0, -9));
  EXPECT_EQ(fmt_of("fp8_e4m3").min_normal, std::ldexp(1.0, -6));
  EXPECT_EQ(fmt_of("fp8_e5m2").min_subnormal, std::ldexp(1.0, -16));
  EXPECT_EQ(fmt_of("fp8_e5m2").min_normal, std::ldexp(1.0, -14));
  EXPECT_EQ(fmt_of("fp6_e3m2").min_subnormal, 0.0625);
  EXPECT_EQ(fmt_of("fp6_e2m3").min_subnormal, 0.125);
  EXPECT_EQ(fmt_of("fp4_e2m1").min_subnormal, 0.5);
  EXPECT_EQ(fmt_of("fp4_e2m1").min_normal, 1);
  EXPECT_EQ(fmt_of("fp16").min_subnormal, std::ldexp(1.0, -24));
  EXPECT_EQ(fmt_of("bf16").min_subnormal, std::ldexp(1.0, -133));
  EXPECT_EQ(fmt_of("fp32").min_subnormal, std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(fmt_of("fp32").min_normal, std::numeric_limits<float>::min());
  EXPECT_EQ(fmt_of("mxint8").min_subnormal, 1.0 / 64);
}

TEST(NumberFormat, EncodingFields) {
  const auto& e4m3 = fmt_of("fp8_e4m3");
  EXPECT_EQ(e4m3.kind, FormatKind::Float);
  EXPECT_EQ(e4m3.element_bits, 8);
  EXPECT_EQ(e4m3.exponent_bits, 4);
  EXPECT_EQ(e4m3.mantissa_bits, 3);
  EXPECT_EQ(e4m3.bias, 7);
  EXPECT_FALSE(e4m3.has_infinity);
  EXPECT_TRUE(e4m3.has_nan);
  EXPECT_TRUE(fmt_of("fp8_e5m2").has_infinity);
  EXPECT_FALSE(fmt_of("fp4_e2m1").has_nan);
  EXPECT_EQ(fmt_of("tf32").element_bits, 32);  // 1-8-10 kept in a 32-bit container
  EXPECT_EQ(fmt_of("tf32").mantissa_bits, 10);
  EXPECT_EQ(fmt_of("fp6_e3m2").bias, 3);
  EXPECT_EQ(fmt_of("fp4_e2m1").bias, 1);

  const auto& mxfp4 = fmt_of("mxfp4");
  EXPECT_EQ(mxfp4.kind, FormatKind::Block);
  EXPECT_EQ(mxfp4.block_size, 32);
  EXPECT_EQ(mxfp4.scale_format, "e8m0");
  EXPECT_EQ(mxfp4.scale_bits, 8);
  EXPECT_EQ(mxfp4.tensor_scale_bits, 0);
  EXPECT_EQ(mxfp4.exponent_bits, 2);
  EXPECT_EQ(mxfp4.mantissa_bits, 1);
  const auto& nvfp4 = fmt_of("nvfp4");
  EXPECT_EQ(nvfp4.block_size, 16);
  EXPECT_EQ(nvfp4.scale_format, "fp8_e4m3");
  EXPECT_EQ(nvfp4.tensor_scale_bits, 32);
  EXPECT_TRUE(fmt_of("mxint8").int_elements);
  EXPECT_FALSE(mxfp4.int_elements);
}

TEST(NumberFormat, BitsPerElementOfEveryFormat) {
  const std::map<std::string, double> expected = {
      {"fp32", 32},         {"tf32", 32},         {"bf16", 16},    {"fp16", 16},         {"fp8_e4m3", 8},
      {"fp8_e5m2", 8},      {"fp6_e3m2", 6},      {"fp6_e2m3", 6}, {"fp4_e2m1", 4},      {"int16", 16},
      {"int8", 8},          {"int4", 4},          {"int2", 2},     {"mxfp8_e4m3", 8.25}, {"mxfp8_e5m2", 8.25},
      {"mxfp6_e3m2", 6.25}, {"mxfp6_e2m3", 6.25}, {"mxfp4", 4.25}, {"mxint8", 8.25},     {"nvfp4", 4.5},
      {"fp64", 64}};
  ASSERT_EQ(expected.size(), number_formats().size());
  for (const auto& f : number_formats()) EXPECT_EQ(f.bits_per_element(), expected.at(f.name)) << f.name;
}

TEST(NumberFormat, FindAcceptsAliasesAndCase) {
  EXPECT_EQ(find_number_format("mxfp8"), &fmt_of("mxfp8_e4m3"));
  EXPECT_EQ(find_number_format("mxfp6"), &fmt_of("mxfp6_e2m3"));
  EXPECT_EQ(find_number_format("fp4"), &fmt_of("fp4_e2m1"));
  EXPECT_EQ(find_number_format("BF16"), &fmt_of("bf16"));
  EXPECT_EQ(find_number_format("e4m3"), nullptr);
  EXPECT_EQ(find_number_format("fp7"), nullptr);
  EXPECT_EQ(find_number_format(""), nullptr);
}

TEST(NumberFormat, Descriptions) {
  EXPECT_EQ(fmt_of("fp8_e4m3").description(), "FP8 E4M3: 1-4-3, max 448, no infinities");
  EXPECT_EQ(fmt_of("fp8_e5m2").description(), "FP8 E5M2: 1-5-2, max 57344, infinities and NaN");
  EXPECT_EQ(fmt_of("fp4_e2m1").description(), "FP4 E2M1: 1-2-1, max 6, no infinities or NaN");
  EXPECT_EQ(fmt_of("tf32").description(), "TF32: 1-8-10, max 3.40116e+38, infinities and NaN, stored in 32 bits");
  EXPECT_EQ(fmt_of("int8").description(), "INT8: two's complement integer, symmetric range ±127");
  EXPECT_EQ(fmt_of("mxfp4").description(),
            "MXFP4: blocks of 32 FP4 E2M1 elements sharing one E8M0 scale, 4.25 bits per element");
  EXPECT_EQ(fmt_of("nvfp4").description(),
            "NVFP4: blocks of 16 FP4 E2M1 elements sharing one FP8 E4M3 scale, plus one FP32 scale per tensor, 4.5 "
            "bits per element");
  for (const auto& f : number_formats()) EXPECT_EQ(f.description().find('\n'), std::string::npos) << f.name;
}

TEST(QuantSpec, ParseAndNameRoundTrip) {
  for (const auto& f : number_formats()) {
    const QuantSpec q = parse_quant_spec(f.name);
    EXPECT_EQ(q.format, &f);
    EXPECT_EQ(q.granularity, Granularity::Tensor);
    EXPECT_EQ(q.name(), f.name);
  }
  for (const char* text :
       {"int8_pc", "int4_pc", "int16_pc", "int2_pc", "int4_g128", "int8_g8", "int4_g4096", "int2_g32"}) {
    const QuantSpec q = parse_quant_spec(text);
    EXPECT_EQ(q.name(), text);
    EXPECT_EQ(parse_quant_spec(q.name()), q);
  }
  const QuantSpec g = parse_quant_spec("int4_g128");
  EXPECT_EQ(g.format, &fmt_of("int4"));
  EXPECT_EQ(g.granularity, Granularity::Group);
  EXPECT_EQ(g.group, 128);
  EXPECT_EQ(parse_quant_spec("int8_pc").granularity, Granularity::Channel);
  EXPECT_EQ(parse_quant_spec(" MXFP8 ").name(), "mxfp8_e4m3");  // aliases come back canonical
  EXPECT_EQ(parse_quant_spec("fp4").name(), "fp4_e2m1");
  EXPECT_EQ(QuantSpec{}.name(), "");
}

TEST(QuantSpec, ParseErrorsSayWhatIsAccepted) {
  const std::string group = parse_error("int4_g100");
  EXPECT_NE(group.find("group size 100 is not a power of two in 8..4096"), std::string::npos) << group;
  EXPECT_NE(parse_error("int4_g4").find("power of two in 8..4096"), std::string::npos);
  EXPECT_NE(parse_error("int4_g8192").find("power of two in 8..4096"), std::string::npos);
  EXPECT_NE(parse_error("int4_g99999999999999999999").find("power of two in 8..4096"), std::string::npos);

  const std::string block = parse_error("mxfp4_g32");
  EXPECT_NE(block.find("only integer formats (int16, int8, int4, int2) do"), std::string::npos) << block;
  EXPECT_NE(block.find("mxfp4 carries its own block scales"), std::string::npos) << block;
  EXPECT_NE(parse_error("fp8_e4m3_pc").find("fp8_e4m3 takes no _pc or _g<N> suffix"), std::string::npos);
  EXPECT_NE(parse_error("bf16_g128").find("bf16 takes no _pc or _g<N> suffix"), std::string::npos);
  EXPECT_NE(parse_error("mxint8_pc").find("mxint8 takes no"), std::string::npos);
  EXPECT_NE(parse_error("mxfp4_g100").find("mxfp4 takes no"), std::string::npos);  // the format is the problem

  const std::string unknown = parse_error("fp7");
  EXPECT_NE(unknown.find("unknown quantization \"fp7\" (did you mean \"fp4\"?)"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("expected one of fp32, tf32,"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("_g<N> (N a power of two in 8..4096)"), std::string::npos) << unknown;
  EXPECT_NE(parse_error("imt4_g128").find("did you mean \"int4\"?"), std::string::npos);
  EXPECT_NE(parse_error("").find("unknown quantization \"\""), std::string::npos);
  for (const char* bad : {"int4_g100", "mxfp4_g32", "fp7", "fp8_e4m3_pc", "int4_gx", "int8_"})
    EXPECT_EQ(parse_error(bad).find('\n'), std::string::npos) << bad;
}

TEST(QuantSpec, HandBuiltSpecsAreChecked) {
  EXPECT_THROW(strata::check_quant_spec(QuantSpec{}), std::invalid_argument);
  EXPECT_THROW(strata::check_quant_spec(QuantSpec{&fmt_of("fp8_e4m3"), Granularity::Channel}), std::invalid_argument);
  EXPECT_THROW(strata::check_quant_spec(QuantSpec{&fmt_of("mxfp4"), Granularity::Group, 32}), std::invalid_argument);
  EXPECT_THROW(strata::check_quant_spec(QuantSpec{&fmt_of("int4"), Granularity::Group, 0}), std::invalid_argument);
  EXPECT_THROW(QuantSpec{}.bits_per_element(128), std::invalid_argument);
  EXPECT_NO_THROW(strata::check_quant_spec(QuantSpec{&fmt_of("int4"), Granularity::Group, 64}));
}

TEST(QuantSpec, BitsPerElementIncludesScales) {
  EXPECT_EQ(parse_quant_spec("int4_g128").bits_per_element(4096), 4.125);     // 4 + 16/128
  EXPECT_EQ(parse_quant_spec("int8_g32").bits_per_element(4096), 8.5);        // 8 + 16/32
  EXPECT_EQ(parse_quant_spec("int8_pc").bits_per_element(4096), 8.00390625);  // 8 + 16/4096
  EXPECT_EQ(parse_quant_spec("int8").bits_per_element(4096), 8);  // the FP32 tensor scale is not per element
  EXPECT_EQ(parse_quant_spec("mxfp4").bits_per_element(4096), 4.25);
  EXPECT_EQ(parse_quant_spec("mxint8").bits_per_element(4096), 8.25);
  EXPECT_EQ(parse_quant_spec("mxfp6").bits_per_element(4096), 6.25);
  EXPECT_EQ(parse_quant_spec("nvfp4").bits_per_element(4096), 4.5);
  EXPECT_EQ(parse_quant_spec("bf16").bits_per_element(4096), 16);
  // A partial last group or block still carries a whole scale.
  EXPECT_DOUBLE_EQ(parse_quant_spec("int4_g128").bits_per_element(200), 4.16);  // 4 + 2·16/200
  EXPECT_DOUBLE_EQ(parse_quant_spec("mxfp4").bits_per_element(40), 4.4);        // 4 + 2·8/40
  EXPECT_THROW(parse_quant_spec("mxfp4").bits_per_element(0), std::invalid_argument);
}

TEST(QuantSpec, StorageBytes) {
  EXPECT_EQ(parse_quant_spec("int8").storage_bytes(1024, 1024), 1024u + 4);  // + one FP32 scale
  EXPECT_EQ(parse_quant_spec("int8").storage_bytes(1024, 32), 1024u + 4);
  EXPECT_EQ(parse_quant_spec("int8_pc").storage_bytes(1024, 32), 1024u + 32 * 2);
  // A 4096×4096 INT4 weight in groups of 128: 8 MiB of elements + 4096·32 FP16 scales.
  EXPECT_EQ(parse_quant_spec("int4_g128").storage_bytes(4096LL * 4096, 4096), 8388608u + 262144);
  EXPECT_EQ(parse_quant_spec("mxfp4").storage_bytes(32, 32), 16u + 1);
  EXPECT_EQ(parse_quant_spec("mxfp8").storage_bytes(4096, 1024), 4096u + 128);
  EXPECT_EQ(parse_quant_spec("nvfp4").storage_bytes(16, 16), 8u + 1 + 4);  // + the FP32 tensor scale
  EXPECT_EQ(parse_quant_spec("nvfp4").storage_bytes(1024, 64), 512u + 64 + 4);
  EXPECT_EQ(parse_quant_spec("fp4_e2m1").storage_bytes(3, 3), 2u);  // 12 bits round up to 2 bytes
  EXPECT_EQ(parse_quant_spec("fp6_e2m3").storage_bytes(4, 4), 3u);  // 24 bits
  EXPECT_EQ(parse_quant_spec("int2").storage_bytes(5, 5), 6u);      // 10 + 32 bits = 42 bits
  EXPECT_EQ(parse_quant_spec("bf16").storage_bytes(10, 5), 20u);
  EXPECT_EQ(parse_quant_spec("tf32").storage_bytes(10, 5), 40u);
  EXPECT_EQ(parse_quant_spec("int8").storage_bytes(0, 16), 0u);
  EXPECT_THROW(parse_quant_spec("int8").storage_bytes(100, 32), std::invalid_argument);  // not whole rows
  EXPECT_THROW(parse_quant_spec("int8").storage_bytes(32, 0), std::invalid_argument);
  EXPECT_THROW(parse_quant_spec("int8").storage_bytes(-32, 32), std::invalid_argument);
}
