#include "sim/app/validation/validation_catalog.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "sim/app/experiment.h"
#include "sim/app/sweep/expression.h"
#include "sim/config_node.h"
#include "sim/config_values.h"
#include "sim/registry.h"
#include "sim/tech/tech_table.h"
#include "sim/text.h"
#include "sim/units.h"

namespace strata {
namespace fs = std::filesystem;
namespace {

double number_of(const ConfigNode& n, const std::string& key) {
  const std::string& text = config_text(n, key);
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  config_fail(n, key, fmt::format("expected a number, got \"{}\"", text));
}

// "5%", "0.05", "exact" (0): the fraction the model may be off.
double fraction_of(const ConfigNode& n, const std::string& key) {
  const std::string text{trim(config_text(n, key))};
  if (text == "exact") return 0;
  double v = 0;
  try {
    size_t used = 0;
    v = std::stod(text, &used);
    const std::string rest{trim(std::string_view(text).substr(used))};
    if (rest == "%") v /= 100;
    else if (!rest.empty()) throw std::invalid_argument(text);
  } catch (const std::exception&) {
    config_fail(n, key, fmt::format("expected a fraction (\"5%\", 0.05 or exact), got \"{}\"", text));
  }
  if (!(v >= 0) || !std::isfinite(v)) config_fail(n, key, "a tolerance is not negative");
  return v;
}

std::string relative_to(const std::string& file, const std::string& path) {
  if (fs::path(path).is_absolute()) return path;
  return (fs::absolute(fs::path(file).parent_path()) / path).lexically_normal().string();
}

std::vector<std::string> sets_of(const ConfigNode& n, const std::string& key) {
  std::vector<std::string> out;
  if (n.is_map()) {
    for (const auto& [k, v] : n.entries()) {
      if (!v.is_scalar() && !v.is_sequence() && !v.is_map()) config_fail(v, key + "." + k, "expected a value");
      std::string value = v.is_scalar() ? v.value() : v.to_yaml();
      // to_yaml of a flow value may end in a newline; an override is one line.
      while (!value.empty() && value.back() == '\n') value.pop_back();
      out.push_back(k + "=" + value);
    }
    return out;
  }
  config_fail(n, key, "expected a mapping of config keys to values");
}

ValidationRun run_of(const ConfigNode& n, const std::string& key, const std::string& file,
                     const ValidationRun* inherit) {
  ValidationRun r;
  if (inherit) r = *inherit, r.sets.clear();
  if (const ConfigNode* e = n.find("experiment"))
    r.experiment = relative_to(file, config_text(*e, key + ".experiment"));
  if (const ConfigNode* imp = n.find("importer")) {
    if (!imp->is_map() || imp->entries().empty()) config_fail(*imp, key + ".importer", "expected flag: file pairs");
    r.experiment.clear();
    r.files.clear();
    for (const auto& [flag, path] : imp->entries()) {
      if (flag.rfind("--", 0) != 0)
        config_fail(path, key + ".importer." + flag, "expected a `strata run` flag (--...)");
      r.files.emplace_back(flag, relative_to(file, config_text(path, key + ".importer." + flag)));
    }
  }
  if (const ConfigNode* s = n.find("set")) r.sets = sets_of(*s, key + ".set");
  if (r.experiment.empty() && r.files.empty())
    config_fail(n, key, "names what runs: experiment (a file) or importer (flags and files)");
  if (!r.experiment.empty() && !fs::exists(r.experiment)) {
    const ConfigNode* e = n.find("experiment");
    config_fail(e ? *e : n, key + ".experiment", fmt::format("no file {}", r.experiment));
  }
  for (const auto& [flag, p] : r.files)
    if (!fs::exists(p))
      config_fail(n.find("importer") ? *n.find("importer") : n, key + ".importer." + flag,
                  fmt::format("no file {}", p));
  return r;
}

TechQuery tech_of(const ConfigNode& n, const std::string& key) {
  config_only_keys(n, key, {"node", "op", "sram", "width", "banks", "field"});
  TechQuery q;
  q.node = config_text(config_required(n, "node", key + ".node"), key + ".node");
  q.field = config_text(config_required(n, "field", key + ".field"), key + ".field");
  const ConfigNode* op = n.find("op");
  const ConfigNode* sram = n.find("sram");
  if ((op != nullptr) == (sram != nullptr)) config_fail(n, key, "names one of op (an operation) or sram (a capacity)");
  if (op) {
    q.op = config_text(*op, key + ".op");
    if (q.field != "energy_pj" && q.field != "area_um2")
      config_fail(*n.find("field"), key + ".field", "an operation's field is energy_pj or area_um2");
  } else {
    try {
      q.sram_bytes = parse_quantity(config_text(*sram, key + ".sram"), UnitFamily::Size);
    } catch (const InputError& e) {
      config_fail(*sram, key + ".sram", e.message());
    }
    if (const ConfigNode* w = n.find("width"))
      q.width_bits = static_cast<int>(config_integer(*w, key + ".width", 1, 4096));
    if (const ConfigNode* b = n.find("banks")) q.banks = static_cast<int>(config_integer(*b, key + ".banks", 1, 1024));
    if (q.field != "read_pj" && q.field != "area_mm2")
      config_fail(*n.find("field"), key + ".field", "an SRAM's field is read_pj or area_mm2");
  }
  return q;
}

ValidationCheck check_of(const ConfigNode& n, const std::string& key, const std::string& suite,
                         const std::string& file) {
  if (!n.is_map()) config_fail(n, key, "expected a mapping (a check)");
  config_only_keys(n, key,
                   {"id", "what", "unit", "source", "note", "test", "experiment", "importer", "set", "baseline", "tech",
                    "report", "metric", "reference", "tolerance", "asserted", "quick"});
  ValidationCheck c;
  c.suite = suite;
  c.loc = n.loc();
  c.id = config_text(config_required(n, "id", key + ".id"), key + ".id");
  for (char ch : c.id)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_')
      config_fail(*n.find("id"), key + ".id", "letters, digits, '-' and '_' only (it names files)");
  c.what = config_text(config_required(n, "what", key + ".what"), key + ".what");
  c.unit = config_text(config_required(n, "unit", key + ".unit"), key + ".unit");
  c.source = config_text(config_required(n, "source", key + ".source"), key + ".source");
  if (const ConfigNode* v = n.find("note")) c.note = config_text(*v, key + ".note");
  if (const ConfigNode* v = n.find("test")) c.test = config_text(*v, key + ".test");
  c.reference = number_of(config_required(n, "reference", key + ".reference"), key + ".reference");
  if (c.reference == 0) config_fail(*n.find("reference"), key + ".reference", "a reference of 0 has no relative error");

  const ConfigNode& tol = config_required(n, "tolerance", key + ".tolerance");
  if (tol.is_map()) {
    config_only_keys(tol, key + ".tolerance", {"below", "above"});
    c.below = fraction_of(config_required(tol, "below", key + ".tolerance.below"), key + ".tolerance.below");
    c.above = fraction_of(config_required(tol, "above", key + ".tolerance.above"), key + ".tolerance.above");
  } else {
    c.below = c.above = fraction_of(tol, key + ".tolerance");
  }
  for (const char* flag : {"asserted", "quick"})
    if (const ConfigNode* v = n.find(flag)) {
      const std::string& t = config_text(*v, key + "." + flag);
      if (t != "true" && t != "false") config_fail(*v, key + "." + flag, "expected true or false");
      (std::string(flag) == "asserted" ? c.asserted : c.quick) = t == "true";
    }

  const ConfigNode* tech = n.find("tech");
  const bool runs = n.find("experiment") || n.find("importer");
  if (tech && runs) config_fail(*tech, key + ".tech", "a check reads a technology table or runs, not both");
  if (tech) {
    if (!tech->is_map()) config_fail(*tech, key + ".tech", "expected a mapping (node, op or sram, field)");
    c.tech = tech_of(*tech, key + ".tech");
    for (const char* k : {"metric", "report", "baseline", "set"})
      if (n.find(k)) config_fail(*n.find(k), key + "." + k, "a tech check has no run to read");
    return c;
  }
  c.run = run_of(n, key, file, nullptr);
  if (const ConfigNode* b = n.find("baseline")) {
    if (!b->is_map()) config_fail(*b, key + ".baseline", "expected a mapping (experiment, importer, set)");
    config_only_keys(*b, key + ".baseline", {"experiment", "importer", "set"});
    c.baseline = run_of(*b, key + ".baseline", file, &*c.run);
  }
  const ConfigNode* metric = n.find("metric");
  const ConfigNode* report = n.find("report");
  if ((metric != nullptr) == (report != nullptr))
    config_fail(n, key, "names one of metric (an expression over the result) or report (a CSV cell)");
  if (metric) {
    c.metric = config_text(*metric, key + ".metric");
    Expression(c.metric, metric->loc(), key + ".metric");  // parses now: errors at load time
  } else {
    if (!report->is_map()) config_fail(*report, key + ".report", "expected a mapping (file, row, column)");
    config_only_keys(*report, key + ".report", {"file", "row", "column"});
    c.report =
        ReportCell{config_text(config_required(*report, "file", key + ".report.file"), key + ".report.file"), 0,
                   config_text(config_required(*report, "column", key + ".report.column"), key + ".report.column")};
    if (const ConfigNode* r = report->find("row"))
      c.report->row = static_cast<int>(config_integer(*r, key + ".report.row", 0, 1 << 30));
  }
  return c;
}

// A value of stats.json at a dotted path: the node itself when it is a number, or its "value".
std::optional<double> stats_value(const nlohmann::json& root, const std::string& path) {
  const nlohmann::json* node = &root;
  for (const std::string& part : split(path, '.')) {
    if (!node->is_object() || !node->contains(part)) return std::nullopt;
    node = &(*node)[part];
  }
  if (node->is_object() && node->contains("value")) node = &(*node)["value"];
  if (node->is_number()) return node->get<double>();
  return std::nullopt;
}

// A name of a metric: a summary key, `stats.PATH`, or either after `baseline.`.
std::optional<ExprValue> metric_value(const std::string& name, const ValidationRunResult* run,
                                      const ValidationRunResult* baseline) {
  const ValidationRunResult* r = run;
  std::string n = name;
  if (n.rfind("baseline.", 0) == 0) r = baseline, n = n.substr(9);
  if (!r) return std::nullopt;
  if (n.rfind("stats.", 0) == 0) {
    if (auto v = stats_value(r->stats, n.substr(6))) return *v;
    return std::nullopt;
  }
  if (r->summary.contains(n) && r->summary[n].is_number()) return r->summary[n].get<double>();
  return std::nullopt;
}

double csv_cell(const ValidationCheck& c, const ValidationRunResult& run) {
  const std::string path = (fs::path(run.dir) / c.report->file).string();
  std::ifstream in(path);
  if (!in) throw InputError(c.loc, "report.file", fmt::format("the run wrote no {}", path));
  std::string line;
  std::vector<std::string> header;
  int column = -1, row = -1;
  while (read_line(in, line)) {
    std::vector<std::string> cells = split(line, ',');
    for (std::string& cell : cells) cell = std::string(trim(cell));
    if (header.empty()) {
      header = cells;
      auto it = std::find(header.begin(), header.end(), c.report->column);
      if (it == header.end())
        throw InputError(c.loc, "report.column", fmt::format("{} has no column \"{}\"", path, c.report->column));
      column = static_cast<int>(it - header.begin());
      continue;
    }
    if (++row != c.report->row) continue;
    if (column >= static_cast<int>(cells.size())) break;
    try {
      return std::stod(cells[column]);
    } catch (const std::exception&) {
      throw InputError(c.loc, "report.column", fmt::format("{}: not a number: \"{}\"", path, cells[column]));
    }
  }
  throw InputError(c.loc, "report.row",
                   fmt::format("{} has no row {} with column \"{}\"", path, c.report->row, c.report->column));
}

double tech_figure(const ValidationCheck& c, const Registry& registry) {
  const TechQuery& q = *c.tech;
  const auto t = TechTable::load(q.node, c.loc, "tech.node", registry.tech_sections());
  if (!q.op.empty()) {
    if (!t->has_op(q.op)) throw InputError(c.loc, "tech.op", fmt::format("table {} has no operation {}", q.node, q.op));
    const UnitCost u = t->op(q.op);
    return q.field == "energy_pj" ? u.energy_j * 1e12 : u.area_mm2 * 1e6;
  }
  const SramCost s = t->sram(q.sram_bytes, q.width_bits, q.banks, c.loc, "tech.sram");
  return q.field == "read_pj" ? s.read_j * 1e12 : s.area_mm2;
}

}  // namespace

std::vector<std::string> ValidationRun::args(const std::string& out) const {
  std::vector<std::string> a = {"run", "-q"};
  if (!experiment.empty()) a.push_back(experiment);
  for (const auto& [flag, path] : files) a.push_back(flag), a.push_back(path);
  for (const std::string& s : sets) a.push_back("--set"), a.push_back(s);
  a.push_back("-o");
  a.push_back(out);
  return a;
}

std::string ValidationRun::key() const {
  std::string k = experiment;
  for (const auto& [flag, path] : files) k += " " + flag + " " + path;
  for (const std::string& s : sets) k += " --set " + s;
  return k;
}

bool ValidationCheck::within(double model) const {
  // A relative slack of 1e-9 keeps exact checks exact but for the rounding of the printed figure.
  const double e = error(model);
  return std::isfinite(e) && e >= -below - 1e-9 && e <= above + 1e-9;
}

ValidationSuite load_validation_suite(const std::string& file) {
  const ConfigNode root = ConfigNode::load_file(file);
  if (!root.is_map()) config_fail(root, "", "expected a mapping with suite, title and checks");
  config_only_keys(root, "", {"suite", "title", "checks"});
  ValidationSuite s;
  s.file = file;
  s.name = config_text(config_required(root, "suite", "suite"), "suite");
  // It names the report's runs/SUITE/ folder and its figures: a name like any that becomes a
  // directory (no '/', not '..'), so a suite cannot write outside the report.
  check_result_name(s.name, root.find("suite")->loc(), "suite");
  s.title = config_text(config_required(root, "title", "title"), "title");
  const ConfigNode& checks = config_required(root, "checks", "checks");
  if (!checks.is_sequence() || checks.items().empty()) config_fail(checks, "checks", "expected a list of checks");
  std::set<std::string> ids;
  for (size_t i = 0; i < checks.items().size(); ++i) {
    ValidationCheck c = check_of(checks.items()[i], fmt::format("checks[{}]", i), s.name, file);
    if (!ids.insert(c.id).second)
      config_fail(*checks.items()[i].find("id"), fmt::format("checks[{}].id", i),
                  fmt::format("\"{}\" twice in the suite", c.id));
    s.checks.push_back(std::move(c));
  }
  return s;
}

std::vector<ValidationSuite> load_validation_suites(const std::string& dir) {
  if (!fs::is_directory(dir)) throw InputError(SourceLoc{dir}, "", "no such directory of validation checks");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::vector<ValidationSuite> out;
  std::set<std::string> names;
  for (const std::string& f : files) {
    out.push_back(load_validation_suite(f));
    if (!names.insert(out.back().name).second)
      throw InputError(SourceLoc{f}, "suite", fmt::format("\"{}\" is declared by another file too", out.back().name));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

const ValidationCheck& find_validation_check(const std::vector<ValidationSuite>& suites, const std::string& suite,
                                             const std::string& id) {
  for (const ValidationSuite& s : suites) {
    if (s.name != suite) continue;
    std::vector<std::string> ids;
    for (const ValidationCheck& c : s.checks) {
      if (c.id == id) return c;
      ids.push_back(c.id);
    }
    const auto near = closest_match(id, ids);
    throw InputError(SourceLoc{s.file}, id,
                     near ? fmt::format("no such check (did you mean {}?)", *near) : "no such check");
  }
  throw InputError(SourceLoc{"configs/validation"}, suite, "no such suite");
}

ValidationRunResult read_validation_run(const std::string& dir) {
  ValidationRunResult r;
  r.dir = dir;
  r.summary = nlohmann::json::parse(read_text_file((fs::path(dir) / "summary.json").string()));
  r.stats = nlohmann::json::parse(read_text_file((fs::path(dir) / "stats.json").string()));
  return r;
}

double validation_figure(const ValidationCheck& check, const ValidationRunResult* run,
                         const ValidationRunResult* baseline, const Registry& registry) {
  if (check.tech) return tech_figure(check, registry);
  if (!run) throw InputError(check.loc, check.id, "has no run result");
  if (check.report) return csv_cell(check, *run);
  const Expression e(check.metric, check.loc, "metric");
  return e.eval([&](const std::string& name) { return metric_value(name, run, baseline); });
}

}  // namespace strata
