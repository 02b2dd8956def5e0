#include "sim/app/sweep/results_store.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include "sim/app/sweep/pareto.h"
#include "sim/app/sweep/point_runner.h"
#include "sim/input_error.h"
#include "sim/results_writer.h"
#include "sim/text.h"

namespace fs = std::filesystem;

namespace strata {
namespace {

// A cell: a number, a text, or empty.
struct Cell {
  std::optional<double> number;
  bool integer = false;
  std::string text;
  bool empty() const { return !number && text.empty(); }
  std::string str() const {
    if (number) return integer ? fmt::format("{}", static_cast<long long>(*number)) : fmt::format("{}", *number);
    return text;
  }
};

Cell from_json(const nlohmann::json& v) {
  Cell c;
  if (v.is_number_integer() || v.is_number_unsigned()) {
    c.number = v.get<double>();
    c.integer = true;
  } else if (v.is_number()) {
    c.number = v.get<double>();
  } else if (v.is_boolean()) {
    c.number = v.get<bool>() ? 1 : 0;
    c.integer = true;
  } else if (v.is_string()) {
    c.text = v.get<std::string>();
  } else if (!v.is_null()) {
    c.text = v.dump();
  }
  return c;
}

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    return nlohmann::json();
  }
}

// Summary keys that are not figures of the design (identity, status, wall clock).
bool skipped_summary_key(const std::string& k) {
  return k == "experiment" || k == "config_hash" || k == "status" || k == "wall_time_s" || k == "fidelity";
}

struct Row {
  const PlanEntry* entry = nullptr;
  PointState state = PointState::Pending;
  nlohmann::ordered_json summary;
  std::string error;
  std::map<std::string, Cell> figures;  // summary figures and outputs
  std::optional<double> wall_s;
};

struct Table {
  std::vector<std::string> columns;  // all of them, in order
  std::vector<std::vector<Cell>> rows;
  std::vector<bool> numeric;  // per column, for SQLite
};

std::string table_csv(const Table& t, const std::vector<size_t>& rows, const std::vector<size_t>& columns) {
  std::string out;
  for (size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + csv_field(t.columns[columns[i]]);
  out += "\n";
  for (size_t r : rows) {
    for (size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + csv_field(t.rows[r][columns[i]].str());
    out += "\n";
  }
  return out;
}

void check(int rc, sqlite3* db, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
    throw OutputError(fmt::format("results.sqlite: {}: {}", what, sqlite3_errmsg(db)));
}

std::string quoted(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void write_sqlite(const std::string& path, const Table& t,
                  const std::vector<std::pair<std::string, std::string>>& meta) {
  const std::string tmp = temporary_path(path);
  std::error_code ec;
  fs::remove(tmp, ec);
  sqlite3* db = nullptr;
  if (sqlite3_open(tmp.c_str(), &db) != SQLITE_OK) {
    const std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw OutputError(fmt::format("cannot create {}: {}", tmp, msg));
  }
  // A failure (a full disk: SQLITE_FULL, an I/O error) is an OutputError, and the temporary
  // database goes with it; the older store stays.
  struct Close {
    sqlite3* db;
    std::string tmp;
    bool done = false;
    ~Close() {
      sqlite3_close_v2(db);  // closes once any statement a failure left is finalized
      if (!done) ::unlink(tmp.c_str());
    }
  } close{db, tmp};
  check(sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;", nullptr, nullptr, nullptr), db,
        "begin");
  std::string create = "CREATE TABLE points (";
  std::string insert = "INSERT INTO points VALUES (";
  for (size_t i = 0; i < t.columns.size(); ++i) {
    create += (i ? ", " : "") + quoted(t.columns[i]) + (t.numeric[i] ? " REAL" : " TEXT");
    insert += i ? ", ?" : "?";
  }
  check(sqlite3_exec(db, (create + ")").c_str(), nullptr, nullptr, nullptr), db, "create table points");
  sqlite3_stmt* st = nullptr;
  check(sqlite3_prepare_v2(db, (insert + ")").c_str(), -1, &st, nullptr), db, "prepare");
  for (const auto& row : t.rows) {
    sqlite3_reset(st);
    for (size_t i = 0; i < row.size(); ++i) {
      const int col = static_cast<int>(i) + 1;
      if (row[i].number && t.numeric[i]) sqlite3_bind_double(st, col, *row[i].number);
      else if (row[i].empty()) sqlite3_bind_null(st, col);
      else sqlite3_bind_text(st, col, row[i].str().c_str(), -1, SQLITE_TRANSIENT);
    }
    check(sqlite3_step(st), db, "insert");
  }
  sqlite3_finalize(st);
  check(sqlite3_exec(db, "CREATE TABLE sweep (key TEXT PRIMARY KEY, value TEXT)", nullptr, nullptr, nullptr), db,
        "create table sweep");
  check(sqlite3_prepare_v2(db, "INSERT INTO sweep VALUES (?, ?)", -1, &st, nullptr), db, "prepare");
  for (const auto& [k, v] : meta) {
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, k.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, v.c_str(), -1, SQLITE_TRANSIENT);
    check(sqlite3_step(st), db, "insert");
  }
  sqlite3_finalize(st);
  check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db, "commit");
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw OutputError(fmt::format("cannot rename {} to {}: {}", tmp, path, std::strerror(errno)));
  close.done = true;
}

Row load_row(const std::string& dir, const SweepPlan& plan, const PlanEntry& e,
             const std::vector<std::unique_ptr<Expression>>& outputs) {
  Row r;
  r.entry = &e;
  const fs::path pd = fs::path(dir) / e.path();
  r.state = point_state(pd.string());
  if (r.state == PointState::Ok) {
    std::ifstream in(pd / "summary.json");
    try {
      r.summary = nlohmann::ordered_json::parse(in);  // ordered: summary.json's own key order
    } catch (const nlohmann::json::exception&) {
    }
    if (!r.summary.is_object()) {
      r.state = PointState::Failed;
      r.error = "summary.json is damaged";
      return r;
    }
    for (const auto& [k, v] : r.summary.items()) {
      if (k == "wall_time_s" && v.is_number()) r.wall_s = v.get<double>();
      if (!skipped_summary_key(k)) r.figures[k] = from_json(v);
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string& name = plan.outputs[i].first;
      if (r.figures.count(name))
        throw InputError(
            SourceLoc{(fs::path(dir) / "sweep.json").string()}, "outputs." + name,
            fmt::format("the points report a figure named '{}' themselves; rename the output so it does not "
                        "replace the measured value",
                        name));
      try {
        const double v = outputs[i]->eval([&](const std::string& name) -> std::optional<ExprValue> {
          auto it = r.figures.find(name);
          if (it == r.figures.end() || !it->second.number) return std::nullopt;
          return *it->second.number;
        });
        r.figures[plan.outputs[i].first] = Cell{v, false, {}};
      } catch (const InputError&) {
        // A figure this point does not have: the output stays empty.
      }
    }
  } else if (r.state == PointState::Failed) {
    const nlohmann::json f = read_json(pd / "failed.json");
    r.error = f.is_object() ? f.value("error", std::string("failed")) : "failed";
  }
  return r;
}

std::vector<std::unique_ptr<Expression>> output_expressions(const std::string& dir, const SweepPlan& plan) {
  std::vector<std::unique_ptr<Expression>> out;
  for (const auto& [name, text] : plan.outputs)
    out.push_back(
        std::make_unique<Expression>(text, SourceLoc{(fs::path(dir) / "sweep.json").string()}, "outputs." + name));
  return out;
}

std::vector<int> ranks(const std::vector<double>& v, bool minimize) {
  std::vector<int> order(v.size());
  for (size_t i = 0; i < v.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return minimize ? v[a] < v[b] : v[a] > v[b]; });
  std::vector<int> rank(v.size());
  for (size_t i = 0; i < order.size(); ++i) rank[static_cast<size_t>(order[i])] = static_cast<int>(i) + 1;
  return rank;
}

// Throws InputError when the point's summary.json is there but is no result.
void refuse_damaged_summary(const std::string& dir, const PlanEntry& e) {
  const fs::path file = fs::path(dir) / e.path() / "summary.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return;
  const std::string text = read_text_file(file.string());
  const std::string key = fmt::format("point {}", e.point);
  const std::string again = "; the point runs again when the sweep runs again";
  int line = 0, column = 0;
  std::string why;
  try {
    const nlohmann::json s = nlohmann::json::parse(text);
    if (!s.is_object()) why = "not a JSON object";
    else if (!s.contains("status")) why = "has no status";
    else return;
  } catch (const nlohmann::json::parse_error& p) {
    // The byte where parsing stopped: its line and column.
    const size_t at = std::min<size_t>(p.byte > 0 ? p.byte - 1 : 0, text.size());
    line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    const size_t nl = text.rfind('\n', at == 0 ? 0 : at - 1);
    column = static_cast<int>(at - (nl == std::string::npos || at == 0 ? 0 : nl + 1)) + 1;
    why = text.empty() ? "empty" : "not valid JSON (cut short?)";
  } catch (const nlohmann::json::exception& x) {
    // A number beyond a double (1e999): nlohmann names the token; its line is where it stands.
    std::string what = x.what();
    const size_t q = what.find('\''), q2 = what.rfind('\'');
    if (q != std::string::npos && q2 > q) {
      const size_t at = text.find(what.substr(q + 1, q2 - q - 1));
      if (at != std::string::npos)
        line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    }
    const size_t close = what.find("] ");
    why = "not valid JSON: " + (close == std::string::npos ? what : what.substr(close + 2));
  }
  throw InputError(SourceLoc{file.string(), line, column}, key, "summary.json is damaged: " + why + again);
}

}  // namespace

double point_figure(const std::string& dir, const SweepPlan& plan, const PlanEntry& entry, const std::string& name) {
  const Row r = load_row(dir, plan, entry, output_expressions(dir, plan));
  auto it = r.figures.find(name);
  return r.state == PointState::Ok && it != r.figures.end() && it->second.number ? *it->second.number : std::nan("");
}

CollectResult collect_results(const std::string& dir, const SweepPlan& plan, bool refuse_damaged) {
  CollectResult result;
  const auto outputs = output_expressions(dir, plan);
  std::vector<Row> rows;
  for (const PlanEntry& e : plan.points) {
    Row r = load_row(dir, plan, e, outputs);
    // A point with a summary.json that is no result is not "not run yet": left out silently, it
    // would be a row short with exit 0.
    if (refuse_damaged && r.state != PointState::Ok) refuse_damaged_summary(dir, e);
    if (r.state == PointState::Pending) {
      ++result.pending;
      continue;
    }
    ++(r.state == PointState::Ok ? result.ok : result.failed);
    rows.push_back(std::move(r));
  }

  // Columns: the plan's, then every summary figure in the order first seen, then outputs.
  Table t;
  t.columns = {"point"};
  for (const auto& a : plan.axes) t.columns.push_back(a);
  for (const char* c : {"fidelity", "status", "hash"}) t.columns.push_back(c);
  const size_t first_figure = t.columns.size();
  std::vector<std::string> figures;
  for (const Row& r : rows)
    for (const auto& [k, v] : r.summary.items())
      if (!skipped_summary_key(k) && std::find(figures.begin(), figures.end(), k) == figures.end())
        figures.push_back(k);
  for (const auto& [name, expr] : plan.outputs)
    if (std::find(figures.begin(), figures.end(), name) == figures.end()) figures.push_back(name);
  for (const auto& f : figures) t.columns.push_back(f);
  for (const char* c : {"path", "error", "wall_time_s"}) t.columns.push_back(c);
  t.numeric.assign(t.columns.size(), false);
  t.numeric[0] = true;
  for (size_t i = first_figure; i < first_figure + figures.size(); ++i) t.numeric[i] = true;
  t.numeric.back() = true;

  for (const Row& r : rows) {
    std::vector<Cell> cells;
    cells.push_back(Cell{static_cast<double>(r.entry->point), true, {}});
    for (const auto& l : r.entry->labels) cells.push_back(Cell{std::nullopt, false, l});
    cells.push_back(Cell{std::nullopt, false, r.entry->fidelity});
    cells.push_back(Cell{std::nullopt, false, r.state == PointState::Ok ? "ok" : "failed"});
    cells.push_back(Cell{std::nullopt, false, r.entry->hash});
    for (const auto& f : figures) {
      auto it = r.figures.find(f);
      cells.push_back(it == r.figures.end() ? Cell{} : it->second);
    }
    cells.push_back(Cell{std::nullopt, false, r.entry->path()});
    cells.push_back(Cell{std::nullopt, false, r.error});
    cells.push_back(r.wall_s ? Cell{*r.wall_s, false, {}} : Cell{});
    t.rows.push_back(std::move(cells));
  }
  // A text in a figure column (a summary field that is not a number) makes the column text.
  for (const auto& row : t.rows)
    for (size_t i = first_figure; i < first_figure + figures.size(); ++i)
      if (!row[i].number && !row[i].text.empty()) t.numeric[i] = false;

  std::vector<size_t> all_rows(t.rows.size()), csv_columns(t.columns.size() - 1);
  for (size_t i = 0; i < all_rows.size(); ++i) all_rows[i] = i;
  for (size_t i = 0; i < csv_columns.size(); ++i) csv_columns[i] = i;  // wall_time_s is left out
  // The store's files are all written before any replaces its older version (sqlite last, then
  // the CSV files renamed into place): a failure on the way (a full disk) leaves the older store.
  std::vector<std::pair<std::string, std::string>> files;
  files.emplace_back((fs::path(dir) / "results.csv").string(), table_csv(t, all_rows, csv_columns));

  // Pareto front of the last stage's ok points over the objectives.
  const int last_stage = plan.two_stage ? 2 : 1;
  std::vector<size_t> candidates;
  std::vector<std::vector<double>> values;
  std::vector<bool> minimize;
  for (const Objective& o : plan.objectives) minimize.push_back(o.minimize);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].state != PointState::Ok || rows[i].entry->stage != last_stage) continue;
    std::vector<double> v;
    for (const Objective& o : plan.objectives) {
      auto it = rows[i].figures.find(o.key);
      if (it == rows[i].figures.end() || !it->second.number) break;
      v.push_back(*it->second.number);
    }
    if (v.size() != plan.objectives.size()) continue;
    candidates.push_back(i);
    values.push_back(std::move(v));
  }
  std::vector<size_t> front;
  if (!plan.objectives.empty())
    for (int i : pareto_front(values, minimize)) front.push_back(candidates[static_cast<size_t>(i)]);
  result.pareto = static_cast<int>(front.size());
  files.emplace_back((fs::path(dir) / "pareto.csv").string(), table_csv(t, front, csv_columns));

  std::vector<std::pair<std::string, std::string>> meta = {
      {"name", plan.name}, {"source", plan.source}, {"points", std::to_string(plan.points.size())}};
  for (const Objective& o : plan.objectives) meta.emplace_back("objective." + o.key, o.minimize ? "min" : "max");
  for (const auto& [name, expr] : plan.outputs) meta.emplace_back("output." + name, expr);
  const auto write_all = [&] {
    std::vector<std::unique_ptr<AtomicFile>> staged;
    for (const auto& [path, text] : files) {
      staged.push_back(std::make_unique<AtomicFile>(path));
      staged.back()->write(text);
    }
    write_sqlite((fs::path(dir) / "results.sqlite").string(), t, meta);
    for (auto& f : staged) f->commit();
  };
  if (!plan.two_stage || plan.objectives.empty()) {
    write_all();
    return result;
  }
  // Two-stage: compare each cycle-level point's rank with its analytic screen's.
  std::map<int, const Row*> screened;
  for (const Row& r : rows)
    if (r.entry->stage == 1 && r.state == PointState::Ok) screened[r.entry->point] = &r;
  std::string csv = "point";
  for (const auto& a : plan.axes) csv += "," + csv_field(a);
  csv += ",objective,analytic,cycle,relative_error,analytic_rank,cycle_rank\n";
  bool first_objective = true;
  for (const Objective& o : plan.objectives) {
    std::vector<const Row*> pairs_rows;
    std::vector<double> a, c;
    for (const Row& r : rows) {
      if (r.entry->stage != 2 || r.state != PointState::Ok || !screened.count(r.entry->point)) continue;
      const Row& s = *screened[r.entry->point];
      auto ci = r.figures.find(o.key);
      auto ai = s.figures.find(o.key);
      if (ci == r.figures.end() || ai == s.figures.end() || !ci->second.number || !ai->second.number) continue;
      pairs_rows.push_back(&r);
      a.push_back(*ai->second.number);
      c.push_back(*ci->second.number);
    }
    const auto ra = ranks(a, o.minimize), rc = ranks(c, o.minimize);
    for (size_t i = 0; i < pairs_rows.size(); ++i) {
      csv += std::to_string(pairs_rows[i]->entry->point);
      for (const auto& l : pairs_rows[i]->entry->labels) csv += "," + csv_field(l);
      csv += fmt::format(",{},{},{},{},{},{}\n", csv_field(o.key), a[i], c[i], c[i] != 0 ? (a[i] - c[i]) / c[i] : 0.0,
                         ra[i], rc[i]);
    }
    if (first_objective) {
      int concordant = 0, discordant = 0;
      for (size_t i = 0; i < a.size(); ++i)
        for (size_t j = i + 1; j < a.size(); ++j) {
          const double s = (a[i] - a[j]) * (c[i] - c[j]);
          if (s > 0) ++concordant;
          else if (s < 0 || ((a[i] == a[j]) != (c[i] == c[j]))) ++discordant;
        }
      result.pairs = static_cast<int>(a.size() * (a.size() - 1) / 2);
      result.disagreements = discordant;
      result.kendall_tau = result.pairs ? static_cast<double>(concordant - discordant) / result.pairs : 1;
      first_objective = false;
    }
  }
  files.emplace_back((fs::path(dir) / "ranking.csv").string(), csv);
  write_all();
  return result;
}

}  // namespace strata
