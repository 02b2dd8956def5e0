// What `strata validate` writes: validation.csv and validation.json (one row per check: the
// model's figure, the reference, the error, the tolerance and the status), report.md (the same
// grouped by suite, with a summary per suite), all deterministic for the same figures but for
// the wall time.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/validation/validation_catalog.h"

namespace strata {

struct ValidationOutcome {
  const ValidationCheck* check = nullptr;
  std::optional<double> model;  // absent when the run or the figure failed
  std::string status;           // pass, fail, reported (not asserted), error
  std::string message;          // why, for an error
};

struct ValidationSuiteSummary {
  int checks = 0, passed = 0, failed = 0, reported = 0, errors = 0;
  // Over the asserted checks with a figure (reported ones show their error only in the table).
  std::optional<double> mape;       // mean |error|
  std::optional<double> max_error;  // largest |error|
  // Pearson's r of log10(model) against log10(reference): figures span decades. Needs 3 checks
  // with positive figures and references that are not all equal.
  std::optional<double> pearson_log;
};

ValidationSuiteSummary summarize(const std::vector<ValidationOutcome>& outcomes);
// The status of a figure against its check.
std::string validation_status(const ValidationCheck& check, double model);

struct ValidationReportInput {
  std::vector<const ValidationSuite*> suites;
  std::vector<ValidationOutcome> outcomes;  // in suite order, then check order
  bool quick = false;
  double wall_time_s = 0;
  std::string command;  // as the user would type it
};

// The outcomes of one suite's checks, in check order.
std::vector<ValidationOutcome> suite_outcomes(const ValidationReportInput& in, const std::string& suite);

std::string validation_csv(const ValidationReportInput& in);
nlohmann::ordered_json validation_json(const ValidationReportInput& in);
std::string validation_markdown(const ValidationReportInput& in);

}  // namespace strata
