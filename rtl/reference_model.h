// Reference models for RTL co-simulation: a Strata model's behaviour at a design's stream
// interface, cycle by cycle. A stream is a valid/ready handshake carrying beats of `elements`
// integers of `element_bits` each (packed element 0 in the low bits), with an optional `last`
// flag. Given the same stimulus as the RTL (input beats offered from a cycle on, output ready
// low on listed cycles), a model returns every handshake that fires, with its cycle and beat:
// the values and timing the RTL must reproduce.
//
// Cycle t is the t-th rising clock edge after reset; a handshake fires at t when valid and
// ready are both 1 at that edge.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/registry.h"
#include "sim/schema.h"

namespace strata {

struct StreamDecl {
  std::string name;
  bool input = true;
  int elements = 1;
  int element_bits = 8;
  bool is_signed = true;
  bool has_last = false;
  int width() const { return elements * element_bits; }
};

struct Beat {
  std::vector<std::int64_t> elems;
  bool last = false;
};

struct Offer {
  std::uint64_t cycle = 0;  // valid from this cycle until the beat fires
  Beat beat;
};

struct Stimulus {
  std::map<std::string, std::vector<Offer>> offers;            // input streams
  std::map<std::string, std::set<std::uint64_t>> stalls;      // output streams: cycles with ready low
};

struct Fire {
  std::uint64_t cycle = 0;
  std::string stream;
  std::size_t index = 0;  // beat number on its stream
  Beat beat;
};

class ReferenceModel {
 public:
  virtual ~ReferenceModel() = default;
  virtual const std::vector<StreamDecl>& streams() const = 0;
  // Every handshake that fires on every stream, in cycle order.
  virtual std::vector<Fire> run(const Stimulus& s) const = 0;
  // A stimulus exercising the design: `transactions` units of work (tiles, dot products) of
  // `length` beats each, random operands from `seed`, input bubbles and output stalls with the
  // given probabilities.
  virtual Stimulus generate(int transactions, int length, std::uint64_t seed, double bubbles, double stalls) const = 0;
};

// The model kinds (`model.kind` of an rtl-check file), registered under this category:
// `registry.make<ReferenceModel>(node)` makes one from its validated section.
inline constexpr const char* kReferenceModelCategory = "reference_model";
void register_reference_models(Registry& registry);

// Element helpers shared by the models and the file formats.
std::int64_t wrap_to(std::int64_t v, int bits, bool is_signed);

}  // namespace strata
