#include "sim/app/validation/validation_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "sim/text.h"

namespace strata {
namespace {

std::string figure_text(double v) { return fmt::format("{:.6g}", v); }
std::string percent(double fraction) { return fmt::format("{:+.2f}%", 100 * fraction); }

std::string tolerance_text(const ValidationCheck& c) {
  if (!c.asserted) return "not asserted";
  if (c.below == 0 && c.above == 0) return "exact";
  if (c.below == c.above) return fmt::format("±{:g}%", 100 * c.below);
  return fmt::format("-{:g}% / +{:g}%", 100 * c.below, 100 * c.above);
}

std::optional<double> pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) mx += x[i] / n, my += y[i] / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i)
    sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx), syy += (y[i] - my) * (y[i] - my);
  if (sxx <= 0 || syy <= 0) return std::nullopt;
  return sxy / std::sqrt(sxx * syy);
}

template <class F>
void for_suite(const ValidationReportInput& in, F&& f) {
  for (const ValidationSuite* s : in.suites) {
    const std::vector<ValidationOutcome> mine = suite_outcomes(in, s->name);
    f(*s, mine, summarize(mine));
  }
}

nlohmann::ordered_json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

std::string optional_percent(const std::optional<double>& v) { return v ? fmt::format("{:.2f}%", 100 * *v) : "–"; }

// Markdown table cells may not hold '|' or newlines.
std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

}  // namespace

std::vector<ValidationOutcome> suite_outcomes(const ValidationReportInput& in, const std::string& suite) {
  std::vector<ValidationOutcome> out;
  for (const ValidationOutcome& o : in.outcomes)
    if (o.check->suite == suite) out.push_back(o);
  return out;
}

std::string validation_status(const ValidationCheck& check, double model) {
  if (!check.asserted) return "reported";
  return check.within(model) ? "pass" : "fail";
}

ValidationSuiteSummary summarize(const std::vector<ValidationOutcome>& outcomes) {
  ValidationSuiteSummary s;
  std::vector<double> lx, ly;
  double sum = 0;
  int with_figure = 0;
  for (const ValidationOutcome& o : outcomes) {
    ++s.checks;
    if (o.status == "pass") ++s.passed;
    else if (o.status == "fail") ++s.failed;
    else if (o.status == "reported") ++s.reported;
    else ++s.errors;
    // Reported checks show their error in the table but do not move the suite's figures.
    if (!o.model || !o.check->asserted) continue;
    const double e = std::abs(o.check->error(*o.model));
    sum += e, ++with_figure;
    s.max_error = std::max(s.max_error.value_or(0), e);
    if (*o.model > 0 && o.check->reference > 0)
      lx.push_back(std::log10(o.check->reference)), ly.push_back(std::log10(*o.model));
  }
  if (with_figure) s.mape = sum / with_figure;
  if (lx.size() >= 3) s.pearson_log = pearson(lx, ly);
  return s;
}

std::string validation_csv(const ValidationReportInput& in) {
  std::string out = "suite,id,what,model,reference,unit,error,tolerance_below,tolerance_above,status,source,test\n";
  for (const ValidationOutcome& o : in.outcomes) {
    const ValidationCheck& c = *o.check;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", c.suite, c.id, csv_field(c.what),
                       o.model ? figure_text(*o.model) : "", figure_text(c.reference), csv_field(c.unit),
                       o.model ? figure_text(c.error(*o.model)) : "", c.asserted ? figure_text(c.below) : "",
                       c.asserted ? figure_text(c.above) : "", o.status, csv_field(c.source), csv_field(c.test));
  }
  return out;
}

nlohmann::ordered_json validation_json(const ValidationReportInput& in) {
  nlohmann::ordered_json j;
  j["command"] = in.command;
  j["quick"] = in.quick;
  j["wall_time_s"] = in.wall_time_s;
  bool all = true;
  j["suites"] = nlohmann::ordered_json::array();
  for_suite(
      in, [&](const ValidationSuite& s, const std::vector<ValidationOutcome>& mine, const ValidationSuiteSummary& sum) {
        nlohmann::ordered_json js;
        js["suite"] = s.name;
        js["title"] = s.title;
        js["summary"] = {{"checks", sum.checks},
                         {"passed", sum.passed},
                         {"failed", sum.failed},
                         {"reported", sum.reported},
                         {"errors", sum.errors},
                         {"mape", optional_json(sum.mape)},
                         {"max_error", optional_json(sum.max_error)},
                         {"pearson_log", optional_json(sum.pearson_log)}};
        all = all && sum.failed == 0 && sum.errors == 0;
        js["checks"] = nlohmann::ordered_json::array();
        for (const ValidationOutcome& o : mine) {
          const ValidationCheck& c = *o.check;
          nlohmann::ordered_json jc;
          jc["id"] = c.id;
          jc["what"] = c.what;
          jc["model"] = optional_json(o.model);
          jc["reference"] = c.reference;
          jc["unit"] = c.unit;
          jc["error"] = o.model ? optional_json(c.error(*o.model)) : nullptr;
          jc["tolerance"] = c.asserted ? nlohmann::ordered_json{{"below", c.below}, {"above", c.above}}
                                       : nlohmann::ordered_json(nullptr);
          jc["status"] = o.status;
          jc["source"] = c.source;
          if (!c.note.empty()) jc["note"] = c.note;
          if (!c.test.empty()) jc["test"] = c.test;
          if (!o.message.empty()) jc["message"] = o.message;
          js["checks"].push_back(std::move(jc));
        }
        j["suites"].push_back(std::move(js));
      });
  j["passed"] = all;
  return j;
}

std::string validation_markdown(const ValidationReportInput& in) {
  std::string md = "# Strata validation report\n\n";
  md += fmt::format(
      "`{}`: {} checks{}, {:.0f} s wall time. Error = (model - reference) / reference; a check "
      "passes when its error is inside its tolerance. MAPE is the mean absolute error of a suite's "
      "asserted checks, r the Pearson correlation of their figures' logarithms with the references'; "
      "reported checks (papers' claims held to no tolerance) are left out of both.\n\n",
      in.command, in.outcomes.size(), in.quick ? " (the quick subset)" : "", in.wall_time_s);
  md += "| suite | checks | passed | failed | reported | errors | MAPE | max error | r (log) |\n";
  md += "|---|---|---|---|---|---|---|---|---|\n";
  for_suite(in, [&](const ValidationSuite& s, const std::vector<ValidationOutcome>&,
                    const ValidationSuiteSummary& sum) {
    md += fmt::format("| [{}](#{}) | {} | {} | {} | {} | {} | {} | {} | {} |\n", s.name, s.name, sum.checks, sum.passed,
                      sum.failed, sum.reported, sum.errors, optional_percent(sum.mape), optional_percent(sum.max_error),
                      sum.pearson_log ? fmt::format("{:.4f}", *sum.pearson_log) : "–");
  });
  for_suite(
      in, [&](const ValidationSuite& s, const std::vector<ValidationOutcome>& mine, const ValidationSuiteSummary&) {
        md += fmt::format("\n## {}\n\n{} (`configs/validation/{}`)\n\n", s.name, s.title,
                          std::filesystem::path(s.file).filename().string());
        md += fmt::format(
            "![{0}: model against reference](plots/{0}-scatter.png) ![{0}: error per check](plots/{0}-error.png)\n\n",
            s.name);
        md += "| check | what | model | reference | unit | error | tolerance | status | source |\n";
        md += "|---|---|---|---|---|---|---|---|---|\n";
        std::string notes;
        for (const ValidationOutcome& o : mine) {
          const ValidationCheck& c = *o.check;
          md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", c.id, cell(c.what),
                            o.model ? figure_text(*o.model) : "–", figure_text(c.reference), cell(c.unit),
                            o.model ? percent(c.error(*o.model)) : "–", tolerance_text(c),
                            o.status == "error"  ? "**error**"
                            : o.status == "fail" ? "**fail**"
                                                 : o.status,
                            cell(c.source));
          if (!c.note.empty()) notes += fmt::format("- **{}**: {}\n", c.id, c.note);
          if (!o.message.empty()) notes += fmt::format("- **{}** (error): {}\n", c.id, o.message);
        }
        if (!notes.empty()) md += "\n" + notes;
      });
  return md;
}

}  // namespace strata
