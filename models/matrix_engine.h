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

class MatrixEngine {
 public:
  virtual ~MatrixEngine() = default;
  // Timing of one tile without counting anything (the mapper's tile search).
  virtual MatrixRun estimate(const MatrixWork& w) const = 0;
  // Runs one tile: counts its MACs, energy and utilisation; the caller waits `cycles`.
  virtual MatrixRun run(const MatrixWork& w) = 0;
  // Tile sizes are chosen in multiples of these (array rows/cols, cube block sizes).
  virtual std::int64_t align_m() const = 0;
  virtual std::int64_t align_n() const = 0;
  virtual std::int64_t align_k() const = 0;
  // MACs per cycle at full utilisation in `format`.
  virtual double peak_macs_per_cycle(const std::string& format) const = 0;
  // Throws InputError naming the unit's `rates` key when the unit cannot run `format`.
  virtual double rate(const std::string& format) const = 0;
  virtual Component& component() = 0;
};

// The `rates` parameter of matrix units: "format=rate" items, e.g. [int8=1, int4=2, fp16=0.5].
ParamSpec rates_param(const std::string& default_text);
// Parses it; throws InputError naming the item.
std::map<std::string, double> parse_rates(const Params& params, const std::string& path);
// rates.at(format), or InputError naming `path`.rates when absent.
double rate_of(const std::map<std::string, double>& rates, const std::string& format, const Params& params,
               const std::string& path);

// The MAC energy events of a unit (`mac.<format>` for every format it runs) and the area and
// leakage of one MAC lane: the lane of the widest format, times its rate (a lane that packs r
// products per cycle has r multipliers).
struct MacLanes {
  std::map<std::string, EnergyEvent*> energy;
  double lane_mm2 = 0, lane_leakage_w = 0;
};
MacLanes declare_mac_lanes(Component& unit, const std::map<std::string, double>& rates);

}  // namespace strata
