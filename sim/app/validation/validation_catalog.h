// The reference checks of `strata validate`, declared once in configs/validation/<suite>.yaml:
// each check names what runs (an experiment with overrides, a peer's files through a `strata
// run` importer, or a lookup in a technology table), which figure of the result it compares
// (`metric`, an expression over the summary, stats.json and a baseline run, or a cell of a CSV
// the run writes), the reference figure, its source and the tolerance. The tests read the same
// files (tests/test_util.h, validation_check), so a test and `strata validate` cannot disagree
// on a reference or a tolerance. docs/validation.md documents every key.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/input_error.h"

namespace strata {

class Registry;

// What one run of a check is: `strata run -q EXPERIMENT [importer flags] --set K=V ...`.
struct ValidationRun {
  std::string experiment;                                  // absolute path; empty with an importer
  std::vector<std::pair<std::string, std::string>> files;  // importer flag -> absolute path
  std::vector<std::string> sets;                           // "key=value", as --set takes them
  // The arguments of `strata run` after "run", writing into `out`.
  std::vector<std::string> args(const std::string& out) const;
  // Identifies the run, so checks that read the same run share it.
  std::string key() const;
};

// A figure of a technology table: an operation's energy or area, an SRAM's read energy or area.
struct TechQuery {
  std::string node;  // "45nm", or a table file
  std::string op;    // "mul.fp32"; or empty for an SRAM
  double sram_bytes = 0;
  int width_bits = 64, banks = 1;
  std::string field;  // energy_pj, area_um2 (op); read_pj, area_mm2 (sram)
};

// A cell of a CSV file the run writes (SCALE-Sim's COMPUTE_REPORT.csv).
struct ReportCell {
  std::string file;
  int row = 0;  // data row, 0 = the first after the header
  std::string column;
};

struct ValidationCheck {
  std::string suite, id;
  std::string what;    // one line: the setup and the figure
  std::string unit;    // of the metric and the reference
  std::string source;  // where the reference comes from
  std::string note;    // why it lands where it does (optional)
  std::string test;    // the GoogleTest that asserts it (optional)
  std::optional<ValidationRun> run;
  std::optional<ValidationRun> baseline;  // a second run, named `baseline.` in the metric
  std::optional<TechQuery> tech;
  std::optional<ReportCell> report;
  std::string metric;  // expression (sim/app/sweep/expression.h)
  double reference = 0;
  double below = 0, above = 0;  // tolerance: the model may land this fraction below / above
  bool asserted = true;         // false: reported with its error, not held to a tolerance
  bool quick = false;           // part of `strata validate --quick`
  SourceLoc loc;

  // (model - reference) / reference.
  double error(double model) const { return (model - reference) / reference; }
  bool within(double model) const;
};

struct ValidationSuite {
  std::string name, title, file;
  std::vector<ValidationCheck> checks;
};

// Every configs/validation/*.yaml under `dir`, sorted by suite name. InputError (file, line,
// key) for a bad file.
std::vector<ValidationSuite> load_validation_suites(const std::string& dir);
ValidationSuite load_validation_suite(const std::string& file);

// The check `suite`/`id`, or InputError naming the closest id.
const ValidationCheck& find_validation_check(const std::vector<ValidationSuite>& suites, const std::string& suite,
                                             const std::string& id);

// A run's figures: its result directory's summary.json and stats.json.
struct ValidationRunResult {
  std::string dir;
  nlohmann::json summary, stats;
};
ValidationRunResult read_validation_run(const std::string& dir);

// The check's model figure from its run (and baseline) results; a tech check needs only the
// registry. InputError (naming the check's file and line) for a figure the result lacks.
double validation_figure(const ValidationCheck& check, const ValidationRunResult* run,
                         const ValidationRunResult* baseline, const Registry& registry);

}  // namespace strata
