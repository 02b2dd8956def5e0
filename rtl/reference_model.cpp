#include "rtl/reference_model.h"

#include <random>

#include "models/systolic/systolic_timing.h"

namespace strata {
namespace {

// Uniform in [0, 1), the same on every platform (std distributions are not).
double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
std::int64_t int8(std::mt19937_64& rng) { return static_cast<std::int64_t>(rng() % 256) - 128; }

// Offers beat after beat, each `1 + gap` cycles after the previous offer, gaps drawn with
// probability `bubbles` per cycle.
std::uint64_t next_offer(std::uint64_t prev, bool first, double bubbles, std::mt19937_64& rng) {
  std::uint64_t c = first ? 0 : prev + 1;
  while (bubbles > 0 && uniform(rng) < bubbles) ++c;
  return c;
}

std::set<std::uint64_t> stall_cycles(std::uint64_t horizon, double p, std::mt19937_64& rng) {
  std::set<std::uint64_t> s;
  if (p <= 0) return s;
  for (std::uint64_t c = 0; c < horizon; ++c)
    if (uniform(rng) < p) s.insert(c);
  return s;
}

// A stream's next beat: presented from its offer cycle, but only after the previous beat fired.
struct Cursor {
  const std::vector<Offer>* offers = nullptr;
  std::size_t next = 0;
  std::uint64_t earliest = 0;  // the cycle after the previous fire
  bool valid(std::uint64_t t) const { return offers && next < offers->size() && (*offers)[next].cycle <= t && earliest <= t; }
  const Beat& beat() const { return (*offers)[next].beat; }
  Fire fire(std::uint64_t t, const std::string& name) {
    Fire f{t, name, next, beat()};
    ++next;
    earliest = t + 1;
    return f;
  }
  bool done() const { return !offers || next >= offers->size(); }
};

Cursor cursor(const Stimulus& s, const std::string& name) {
  Cursor c;
  auto it = s.offers.find(name);
  if (it != s.offers.end()) c.offers = &it->second;
  return c;
}

bool stalled(const Stimulus& s, const std::string& name, std::uint64_t t) {
  auto it = s.stalls.find(name);
  return it != s.stalls.end() && it->second.count(t);
}

// -------------------------------------------------------------------------------------------
// systolic_array (output stationary): Strata's systolic array on one rows×cols tile.

class SystolicTileModel : public ReferenceModel {
 public:
  explicit SystolicTileModel(const Params& p) : rows_(p.integer("rows")), cols_(p.integer("cols")) {
    streams_ = {StreamDecl{"a", true, static_cast<int>(rows_), 8, true, true},
                StreamDecl{"b", true, static_cast<int>(cols_), 8, true, false},
                StreamDecl{"c", false, static_cast<int>(cols_), 32, true, true}};
    cfg_.rows = rows_;
    cfg_.cols = cols_;
    cfg_.dataflow = Dataflow::OutputStationary;
    cfg_.double_buffer = false;
    cfg_.overlap_folds = false;
  }
  const std::vector<StreamDecl>& streams() const override { return streams_; }

  std::vector<Fire> run(const Stimulus& s) const override {
    std::vector<Fire> fires;
    Cursor a = cursor(s, "a"), b = cursor(s, "b");
    std::vector<std::vector<std::int64_t>> acc(static_cast<size_t>(rows_), std::vector<std::int64_t>(static_cast<size_t>(cols_), 0));
    std::int64_t k = 0;
    bool accepting = true;
    std::uint64_t accept_from = 0;
    // Rows waiting to leave: the earliest cycle of the next one, and which.
    std::int64_t row = -1;
    std::uint64_t row_earliest = 0;
    std::size_t c_index = 0;
    for (std::uint64_t t = 0; !(a.done() && b.done() && row < 0); ++t) {
      if (row >= 0 && t >= row_earliest && !stalled(s, "c", t)) {
        Beat out;
        for (std::int64_t j = 0; j < cols_; ++j) out.elems.push_back(wrap_to(acc[row][j], 32, true));
        out.last = row == rows_ - 1;
        fires.push_back(Fire{t, "c", c_index++, out});
        row_earliest = t + 1;
        if (++row == rows_) {
          row = -1;
          accepting = true;
          accept_from = t + 1;
          for (auto& r : acc) std::fill(r.begin(), r.end(), 0);
          k = 0;
        }
      }
      if (accepting && t >= accept_from && a.valid(t) && b.valid(t)) {
        const Beat& ab = a.beat();
        const Beat& bb = b.beat();
        for (std::int64_t i = 0; i < rows_; ++i)
          for (std::int64_t j = 0; j < cols_; ++j) acc[i][j] += ab.elems[i] * bb.elems[j];
        ++k;
        const bool last = ab.last;
        fires.push_back(a.fire(t, "a"));
        fires.push_back(b.fire(t, "b"));
        if (last) {
          // The array's fill skew (Strata's systolic timing for this tile, less the K cycles of
          // streaming) after the last pair, then one row per cycle from the output register.
          const std::uint64_t skew = systolic_gemm(cfg_, rows_, cols_, k).cycles - static_cast<std::uint64_t>(k);
          accepting = false;
          row = 0;
          row_earliest = t + skew + 1;
        }
      }
      if (t > (1ull << 40)) break;  // a stimulus that never ends its tile
    }
    return fires;
  }

  Stimulus generate(int tiles, int k, std::uint64_t seed, double bubbles, double stalls) const override {
    std::mt19937_64 rng(seed);
    Stimulus s;
    std::uint64_t cycle = 0;
    bool first = true;
    for (int tile = 0; tile < tiles; ++tile)
      for (int kk = 0; kk < k; ++kk) {
        cycle = next_offer(cycle, first, bubbles, rng);
        first = false;
        Beat a, b;
        for (std::int64_t i = 0; i < rows_; ++i) a.elems.push_back(int8(rng));
        for (std::int64_t j = 0; j < cols_; ++j) b.elems.push_back(int8(rng));
        a.last = kk == k - 1;
        s.offers["a"].push_back(Offer{cycle, a});
        s.offers["b"].push_back(Offer{cycle, b});
      }
    const std::uint64_t horizon = static_cast<std::uint64_t>(tiles) * static_cast<std::uint64_t>(k + 4 * (rows_ + cols_)) * 4 + cycle;
    s.stalls["c"] = stall_cycles(horizon, stalls, rng);
    return s;
  }

 private:
  std::int64_t rows_, cols_;
  SystolicConfig cfg_;
  std::vector<StreamDecl> streams_;
};

// -------------------------------------------------------------------------------------------
// mac_pe: one INT8 multiply-accumulate processing element (a dot product per `last`).

class MacPeModel : public ReferenceModel {
 public:
  MacPeModel() {
    streams_ = {StreamDecl{"in", true, 2, 8, true, true}, StreamDecl{"out", false, 1, 32, true, false}};
  }
  const std::vector<StreamDecl>& streams() const override { return streams_; }

  std::vector<Fire> run(const Stimulus& s) const override {
    std::vector<Fire> fires;
    Cursor in = cursor(s, "in");
    std::int64_t acc = 0;
    bool pending = false;
    std::uint64_t out_earliest = 0;
    std::int64_t result = 0;
    std::size_t out_index = 0;
    for (std::uint64_t t = 0; !(in.done() && !pending); ++t) {
      bool out_fire = pending && t >= out_earliest && !stalled(s, "out", t);
      if (out_fire) {
        fires.push_back(Fire{t, "out", out_index++, Beat{{wrap_to(result, 32, true)}, false}});
        pending = false;
      }
      // A result waiting for a stalled output holds the input off (in_ready low).
      const bool in_ready = !pending;
      if (in_ready && in.valid(t)) {
        const Beat& b = in.beat();
        acc += b.elems[0] * b.elems[1];
        const bool last = b.last;
        fires.push_back(in.fire(t, "in"));
        if (last) {
          result = acc;
          acc = 0;
          pending = true;
          out_earliest = t + 1;  // the registered result
        }
      }
    }
    return fires;
  }

  Stimulus generate(int dots, int length, std::uint64_t seed, double bubbles, double stalls) const override {
    std::mt19937_64 rng(seed);
    Stimulus s;
    std::uint64_t cycle = 0;
    bool first = true;
    for (int d = 0; d < dots; ++d)
      for (int i = 0; i < length; ++i) {
        cycle = next_offer(cycle, first, bubbles, rng);
        first = false;
        Beat beat{{int8(rng), int8(rng)}, i == length - 1};
        s.offers["in"].push_back(Offer{cycle, beat});
      }
    s.stalls["out"] = stall_cycles(static_cast<std::uint64_t>(dots) * static_cast<std::uint64_t>(length + 4) * 4 + cycle, stalls, rng);
    return s;
  }

 private:
  std::vector<StreamDecl> streams_;
};

KindSpec systolic_spec() {
  KindSpec s;
  s.name = "systolic_array";
  s.category = kReferenceModelCategory;
  s.description = "Strata's systolic array as one output-stationary rows x cols tile: streams a (a column of A per "
                  "beat, rows int8, last), b (a row of B, cols int8), c (a row of C per beat, cols int32, last); timing "
                  "from the systolic timing model";
  s.add(param::integer("rows", "PE rows (elements of a and beats of c)").def("4").range("1", "256"));
  s.add(param::integer("cols", "PE columns (elements of b and c)").def("4").range("1", "256"));
  s.add(param::choice("dataflow", {"os"}, "the dataflow the RTL implements (output stationary)").def("os"));
  return s;
}

KindSpec mac_spec() {
  KindSpec s;
  s.name = "mac_pe";
  s.category = kReferenceModelCategory;
  s.description = "an INT8 multiply-accumulate PE: stream in (a, b int8, last ends a dot product), stream out (int32)";
  return s;
}

}  // namespace

std::int64_t wrap_to(std::int64_t v, int bits, bool is_signed) {
  if (bits >= 64) return v;
  const std::uint64_t mask = (1ull << bits) - 1;
  std::uint64_t u = static_cast<std::uint64_t>(v) & mask;
  if (is_signed && (u >> (bits - 1)) & 1) return static_cast<std::int64_t>(u | ~mask);
  return static_cast<std::int64_t>(u);
}

void register_reference_models(Registry& registry) {
  registry.add_kind<ReferenceModel>(systolic_spec(), [](const ValidatedNode& node) {
    return std::unique_ptr<ReferenceModel>(std::make_unique<SystolicTileModel>(node.params));
  });
  registry.add_kind<ReferenceModel>(
      mac_spec(), [](const ValidatedNode&) { return std::unique_ptr<ReferenceModel>(std::make_unique<MacPeModel>()); });
}

}  // namespace strata
