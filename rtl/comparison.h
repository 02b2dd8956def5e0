// Comparing the RTL's handshakes with the reference model's, stream by stream and beat by
// beat: values bit for bit (every element and the last flag), timing as the cycle each beat
// fires (output streams within their latency_tolerance, inputs exactly: when the design
// accepts its input is timing too). The first divergence is the earliest in cycles.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rtl/reference_model.h"
#include "rtl/rtl_spec.h"

namespace strata {

struct Divergence {
  std::uint64_t cycle = 0;
  std::string stream, port;
  std::string what;  // "value", "timing", "missing beat", "extra beat"
  std::string expected, actual;
  std::size_t beat = 0;
};

struct StreamComparison {
  std::string stream;
  std::size_t expected_beats = 0, actual_beats = 0;
  std::size_t value_mismatches = 0, timing_mismatches = 0;
  std::int64_t max_cycle_error = 0;
};

struct Timing {
  std::optional<std::uint64_t> first_input, first_output, last_output;
  std::uint64_t latency() const { return first_input && last_output ? *last_output - *first_input + 1 : 0; }
};

struct Comparison {
  std::vector<StreamComparison> streams;
  std::optional<Divergence> first;
  Timing model, rtl;
  bool match() const { return !first.has_value(); }
};

Comparison compare_fires(const RtlSpec& spec, const std::vector<StreamDecl>& decls, const std::vector<Fire>& model,
                         const std::vector<Fire>& rtl);

nlohmann::ordered_json to_json(const Comparison& c);

}  // namespace strata
