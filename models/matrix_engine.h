// The role every matrix unit of a design plays (systolic arrays, cube engines): a mapper asks
// it for estimates while choosing tiles, and a core runs tiles on it, one call and one wait
// per tile. Units declare a rate per number format relative to their base format.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "sim/component.h"

namespace strata {

inline constexpr const char* kMatrixEngineRole = "matrix_engine";

struct MatrixWork {
  std::int64_t m = 1, n = 1, k = 1;
  std::string format;  // number format the products run in ("int8", "fp16", ...)
};

struct MatrixRun {
  std::uint64_t cycles = 0;
  std::uint64_t folds = 0;  // passes of the unit's fixed mapping (array folds, cube block products)
  std::uint64_t macs = 0;
  double utilization = 0;
  // Words moved between the unit and its operand buffers (SRAM reads and writes it causes).
  std::uint64_t a_reads = 0, b_reads = 0, c_writes = 0, c_reads = 0;
};

// Base of every matrix unit: the mapper asks estimate() while choosing tiles; a core calls run()
// once per tile and waits its cycles. The base parses `rates`, declares the `mac_<format>`
// energy events and counts tiles, folds, MACs and busy cycles; a unit supplies its timing,
// its alignment and its MAC lanes per cycle at the base rate.
class MatrixEngine : public Component {
 public:
  MatrixEngine(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx, double base_lanes);

  // Timing of one tile without counting anything (the mapper's tile search).
  virtual MatrixRun estimate(const MatrixWork& w) const = 0;
  // Runs one tile: counts its MACs, energy and folds; the caller waits `cycles`.
  MatrixRun run(const MatrixWork& w);
  // Tile sizes are chosen in multiples of these (array rows/cols, cube block sizes).
  virtual std::int64_t align_m() const = 0;
  virtual std::int64_t align_n() const = 0;
  virtual std::int64_t align_k() const = 0;
  // MACs per cycle at full utilisation in `format`.
  double peak_macs_per_cycle(const std::string& format) const { return base_lanes_ * rate(format); }
  // Throws InputError naming the unit's `rates` key when the unit cannot run `format`.
  double rate(const std::string& format) const;
  void finalize(const sc_core::sc_time& end) override;
  // Every lane busy in the format that costs the most a cycle (its rate x its MAC's energy).
  double peak_dynamic_j_per_cycle() const override;

 protected:
  // Area and leakage of one MAC lane: the widest format's lane times its rate (a lane that
  // packs r products per cycle has r multipliers).
  double lane_mm2() const { return lane_mm2_; }
  double lane_leakage_w() const { return lane_leakage_w_; }

 private:
  double base_lanes_;
  std::map<std::string, double> rates_;
  std::map<std::string, EnergyEvent*> mac_energy_;
  double lane_mm2_ = 0, lane_leakage_w_ = 0;
  Counter& tiles_;
  Counter& folds_;
  Counter& macs_;
  Counter& busy_cycles_;
  Scalar& utilization_;
};

// The `rates` parameter of matrix units: "format=rate" items, e.g. [int8=1, int4=2, fp16=0.5].
ParamSpec rates_param(const std::string& default_text);

}  // namespace strata
