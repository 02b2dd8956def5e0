#include "workloads/graph/graph_loaders.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <unordered_map>

#include <fmt/format.h>

#include "sim/input_error.h"
#include "sim/input_file.h"
#include "sim/memory_budget.h"
#include "sim/results_writer.h"
#include "sim/text.h"

namespace strata {
namespace {

using Edge = std::pair<std::int32_t, std::int32_t>;

// Reads a text file line by line and splits each line into whitespace-separated fields, with
// '#' comments stripped (and handed to `on_comment` if set). Errors name file:line:column.
class TextReader {
 public:
  explicit TextReader(std::string path) : path_(std::move(path)) { open_input_file(in_, path_, "file"); }

  std::function<void(std::string_view comment)> on_comment;

  // Moves to the next line with at least one field; false at the end of the file.
  bool next() {
    while (read_line(in_, text_)) {
      ++line_;
      const size_t hash = text_.find('#');
      if (hash != std::string::npos) {
        if (on_comment) on_comment(std::string_view(text_).substr(hash + 1));
        text_.resize(hash);
      }
      starts_.clear();
      ends_.clear();
      size_t pos = 0;
      while (true) {
        while (pos < text_.size() && is_space(text_[pos])) ++pos;
        if (pos >= text_.size()) break;
        starts_.push_back(pos);
        while (pos < text_.size() && !is_space(text_[pos])) ++pos;
        ends_.push_back(pos);
      }
      if (!starts_.empty()) return true;
    }
    if (in_.bad()) throw InputError(SourceLoc{path_, line_}, "", "read error");
    return false;
  }

  size_t fields() const { return starts_.size(); }
  std::string_view field(size_t i) const {
    return std::string_view(text_).substr(starts_[i], ends_[i] - starts_[i]);
  }
  int line() const { return line_; }
  int column(size_t i) const { return static_cast<int>(starts_[i]) + 1; }
  const std::string& path() const { return path_; }

  [[noreturn]] void fail(size_t i, const std::string& message) const {
    const int column = i < starts_.size() ? static_cast<int>(starts_[i]) + 1 : static_cast<int>(text_.size()) + 1;
    throw InputError(SourceLoc{path_, line_, column}, "", message);
  }
  [[noreturn]] void fail_line(const std::string& message) const {
    throw InputError(SourceLoc{path_, line_}, "", message);
  }

  // Requires between `min` and `max` fields on the current line.
  void expect_fields(size_t min, size_t max, const std::string& format) const {
    if (fields() < min) fail(fields(), fmt::format("expected \"{}\", got {} field{}", format, fields(), fields() == 1 ? "" : "s"));
    if (fields() > max) fail(max, fmt::format("unexpected field \"{}\" (expected \"{}\")", field(max), format));
  }

  // Field i as a decimal integer in [lo, hi); `what` names it in messages, `hi_name` the bound.
  std::int64_t integer(size_t i, const std::string& what, std::int64_t lo, std::int64_t hi,
                       const std::string& hi_name = "") const {
    const std::string_view s = field(i);
    std::int64_t value = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec == std::errc::result_out_of_range) fail(i, fmt::format("{} \"{}\" is out of range", what, s));
    if (ec != std::errc() || p != s.data() + s.size())
      fail(i, fmt::format("expected {} (a decimal integer), got \"{}\"", what, s));
    if (value < lo) {
      if (lo == 0) fail(i, fmt::format("{} {} is negative", what, value));
      fail(i, fmt::format("{} {} is below {}", what, value, lo));
    }
    if (value >= hi) fail(i, fmt::format("{} {} is not below {}{}", what, value, hi_name.empty() ? "" : hi_name + " ", hi));
    return value;
  }

  double real(size_t i, const std::string& what) const {
    const std::string_view s = field(i);
    double value = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || p != s.data() + s.size()) fail(i, fmt::format("expected {} (a number), got \"{}\"", what, s));
    return value;
  }

 private:
  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
  std::string path_;
  std::ifstream in_;
  std::string text_;
  std::vector<size_t> starts_, ends_;
  int line_ = 0;
};

// An upper bound on a node id: the declared count if any, else the int32 range.
std::int64_t id_limit(std::int64_t declared) { return declared > 0 ? declared : CsrGraph::kMaxNodes; }

// What bounds a node id, for messages.
std::string id_bound_name(std::int64_t declared) { return declared > 0 ? "the declared node count" : "2^31 ="; }

// Reads "u v" lines; returns the edges and sets `max_id` (-1 without edges).
std::vector<Edge> read_edges(const std::string& path, std::int64_t declared_nodes, std::int64_t& max_id) {
  TextReader r(path);
  std::vector<Edge> edges;
  max_id = -1;
  const std::int64_t limit = id_limit(declared_nodes);
  const std::string what = "node id", bound = id_bound_name(declared_nodes), format = "u v";
  while (r.next()) {
    r.expect_fields(2, 2, format);
    std::int64_t ids[2];
    for (size_t i = 0; i < 2; ++i) ids[i] = r.integer(i, what, 0, limit, bound);
    max_id = std::max({max_id, ids[0], ids[1]});
    edges.emplace_back(static_cast<std::int32_t>(ids[0]), static_cast<std::int32_t>(ids[1]));
  }
  return edges;
}

std::string stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// CsrGraph::from_edges, with its memory-limit error pointed at the file the node count came from.
CsrGraph graph_from_edges(const std::string& path, const std::string& name, std::int64_t num_nodes,
                          std::vector<Edge> edges, bool symmetrize) {
  try {
    return CsrGraph::from_edges(name, num_nodes, std::move(edges), symmetrize);
  } catch (const InputError& e) {
    throw InputError(SourceLoc{path}, e.key(), e.message());
  }
}

bool exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

// Parses "shape R x C" (also "R x C matrix") in a comment; true if found.
bool parse_shape(std::string_view comment, std::int64_t& rows, std::int64_t& columns) {
  // Look for "<int> x <int>" anywhere in the comment.
  for (size_t i = 0; i < comment.size(); ++i) {
    if (comment[i] < '0' || comment[i] > '9' || (i > 0 && comment[i - 1] >= '0' && comment[i - 1] <= '9')) continue;
    std::int64_t r = 0, c = 0;
    auto [p, ec] = std::from_chars(comment.data() + i, comment.data() + comment.size(), r);
    if (ec != std::errc()) continue;
    const char* end = comment.data() + comment.size();
    while (p < end && *p == ' ') ++p;
    if (p >= end || (*p != 'x' && *p != 'X')) continue;
    ++p;
    while (p < end && *p == ' ') ++p;
    auto [p2, ec2] = std::from_chars(p, end, c);
    if (ec2 != std::errc() || r <= 0 || c <= 0) continue;
    rows = r;
    columns = c;
    return true;
  }
  return false;
}

struct LabelEntry {
  std::int32_t node, label;
  int line, column;
};

std::vector<LabelEntry> read_labels(const std::string& path, std::int64_t declared_nodes, std::int64_t& max_id) {
  TextReader r(path);
  std::vector<LabelEntry> out;
  max_id = -1;
  const std::int64_t limit = id_limit(declared_nodes);
  while (r.next()) {
    r.expect_fields(2, 2, "node class");
    const std::int64_t node = r.integer(0, "node id", 0, limit, id_bound_name(declared_nodes));
    const std::int64_t label = r.integer(1, "class", -1, INT32_MAX);
    max_id = std::max(max_id, node);
    out.push_back({static_cast<std::int32_t>(node), static_cast<std::int32_t>(label), r.line(), r.column(0)});
  }
  return out;
}

std::vector<std::int32_t> fill_labels(const std::string& path, const std::vector<LabelEntry>& entries,
                                      std::int64_t num_nodes) {
  std::vector<std::int32_t> labels(static_cast<size_t>(num_nodes), -1);
  std::vector<int> seen(static_cast<size_t>(num_nodes), 0);  // line that listed the node
  for (const LabelEntry& e : entries) {
    if (e.node >= num_nodes)
      throw InputError(SourceLoc{path, e.line, e.column}, "",
                       fmt::format("node id {} is not below the node count {}", e.node, num_nodes));
    int& first = seen[static_cast<size_t>(e.node)];
    if (first)
      throw InputError(SourceLoc{path, e.line, e.column}, "",
                       fmt::format("node {} is already labeled on line {}", e.node, first));
    first = e.line;
    labels[static_cast<size_t>(e.node)] = e.label;
  }
  return labels;
}

}  // namespace

CsrGraph load_edge_list(const std::string& path, bool symmetrize, std::int64_t num_nodes) {
  if (num_nodes < 0 || num_nodes > CsrGraph::kMaxNodes)
    throw InputError(SourceLoc{path}, "",
                     fmt::format("node count {} is outside [0, {}]", num_nodes, CsrGraph::kMaxNodes));
  std::int64_t max_id = -1;
  std::vector<Edge> edges = read_edges(path, num_nodes, max_id);
  const std::int64_t n = num_nodes > 0 ? num_nodes : max_id + 1;
  if (n == 0) throw InputError(SourceLoc{path}, "", "the edge list holds no edges and no node count is given: the graph would be empty");
  return graph_from_edges(path, stem(path), n, std::move(edges), symmetrize);
}

CsrGraph load_linqs_cites(const std::string& path, std::vector<std::string>* paper_ids) {
  TextReader r(path);
  std::unordered_map<std::string, std::int32_t> index;  // looked up only; ids follow file order
  std::vector<std::string> names;
  std::vector<Edge> edges;
  while (r.next()) {
    r.expect_fields(2, 2, "<cited paper id> <citing paper id>");
    std::int32_t ids[2];
    for (size_t i = 0; i < 2; ++i) {
      std::string key(r.field(i));
      auto it = index.find(key);
      if (it == index.end()) {
        if (static_cast<std::int64_t>(names.size()) >= CsrGraph::kMaxNodes - 1) r.fail(i, "too many distinct paper ids");
        it = index.emplace(key, static_cast<std::int32_t>(names.size())).first;
        names.push_back(std::move(key));
      }
      ids[i] = it->second;
    }
    // The citing paper (second field) links to the cited one (first field).
    edges.emplace_back(ids[1], ids[0]);
  }
  CsrGraph g = graph_from_edges(path, stem(path), static_cast<std::int64_t>(names.size()), std::move(edges), true);
  if (paper_ids) *paper_ids = std::move(names);
  return g;
}

FeatureStats load_sparse_features(const std::string& path, std::int64_t rows, std::int64_t columns) {
  if (rows < 0 || columns < 0)
    throw InputError(SourceLoc{path}, "", fmt::format("negative feature matrix shape {} x {}", rows, columns));
  TextReader r(path);
  bool declared = rows > 0 && columns > 0;
  bool shape_in_file = false;
  r.on_comment = [&](std::string_view comment) {
    std::int64_t fr = 0, fc = 0;
    if (!shape_in_file && parse_shape(comment, fr, fc)) {
      if (fr > CsrGraph::kMaxNodes || fc > INT32_MAX)
        r.fail_line(fmt::format("declared shape {} x {} exceeds {} x {}", fr, fc, CsrGraph::kMaxNodes, INT32_MAX));
      rows = fr;
      columns = fc;
      declared = true;
      shape_in_file = true;
    }
  };
  std::vector<std::pair<std::int32_t, std::int32_t>> entries;
  std::int64_t max_row = -1, max_col = -1;
  while (r.next()) {
    r.expect_fields(3, 3, "node feature value");
    const std::int64_t node = r.integer(0, "node id", 0, declared ? rows : CsrGraph::kMaxNodes,
                                        declared ? "the row count" : "2^31 =");
    const std::int64_t feature = r.integer(1, "feature id", 0, declared ? columns : INT32_MAX,
                                           declared ? "the column count" : "2^31 - 1 =");
    const double value = r.real(2, "feature value");
    if (value == 0) continue;
    max_row = std::max(max_row, node);
    max_col = std::max(max_col, feature);
    entries.emplace_back(static_cast<std::int32_t>(node), static_cast<std::int32_t>(feature));
  }
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  FeatureStats s;
  s.rows = declared ? rows : max_row + 1;
  s.columns = declared ? columns : max_col + 1;
  s.nnz = static_cast<std::int64_t>(entries.size());
  require_memory(4.0 * static_cast<double>(s.rows), fmt::format("per-row counts of {} feature rows", s.rows),
                 SourceLoc{path});
  s.row_nnz.assign(static_cast<size_t>(s.rows), 0);
  for (const auto& e : entries) ++s.row_nnz[static_cast<size_t>(e.first)];
  return s;
}

FeatureStats load_feature_stats(const std::string& path) {
  TextReader r(path);
  FeatureStats s;
  bool have_rows = false, have_columns = false, have_nnz = false, in_counts = false;
  std::int64_t sum = 0;
  while (r.next()) {
    if (!in_counts) {
      const std::string_view key = r.field(0);
      if (key == "row_nnz") {
        r.expect_fields(1, 1, "row_nnz");
        if (!have_rows || !have_columns || !have_nnz) r.fail(0, "row_nnz comes before rows, columns and nnz are all given");
        in_counts = true;
        // Grown as counts arrive, so a header that claims 2^31 rows costs nothing up front.
        s.row_nnz.reserve(static_cast<size_t>(std::min<std::int64_t>(s.rows, 1 << 20)));
        continue;
      }
      bool* seen = key == "rows" ? &have_rows : key == "columns" ? &have_columns : key == "nnz" ? &have_nnz : nullptr;
      if (!seen) r.fail(0, fmt::format("unknown key \"{}\" (expected rows, columns, nnz or row_nnz)", key));
      if (*seen) r.fail(0, fmt::format("{} is given twice", key));
      r.expect_fields(2, 2, std::string(key) + " <count>");
      const std::int64_t value = r.integer(1, std::string(key), 0, INT64_MAX);
      if (key == "rows") {
        if (value > CsrGraph::kMaxNodes) r.fail(1, fmt::format("rows {} exceed {}", value, CsrGraph::kMaxNodes));
        s.rows = value;
      } else if (key == "columns") {
        if (value > INT32_MAX) r.fail(1, fmt::format("columns {} exceed {}", value, INT32_MAX));
        s.columns = value;
      } else {
        s.nnz = value;
      }
      *seen = true;
      if (have_rows && have_columns && have_nnz && s.rows > 0 && s.nnz > s.rows * s.columns)
        r.fail_line(fmt::format("nnz {} exceeds rows x columns = {}", s.nnz, s.rows * s.columns));
      continue;
    }
    for (size_t i = 0; i < r.fields(); ++i) {
      if (static_cast<std::int64_t>(s.row_nnz.size()) >= s.rows)
        r.fail(i, fmt::format("more than rows = {} per-row counts", s.rows));
      const std::int64_t c = r.integer(i, "row nonzero count", 0, s.columns + 1);
      s.row_nnz.push_back(static_cast<std::int32_t>(c));
      sum += c;
    }
  }
  if (!in_counts) throw InputError(SourceLoc{path}, "", "missing row_nnz section (and rows/columns/nnz header)");
  if (static_cast<std::int64_t>(s.row_nnz.size()) != s.rows)
    throw InputError(SourceLoc{path, r.line()}, "",
                     fmt::format("row_nnz has {} counts but rows = {} (truncated file?)", s.row_nnz.size(), s.rows));
  if (sum != s.nnz)
    throw InputError(SourceLoc{path, r.line()}, "", fmt::format("row_nnz counts sum to {} but nnz = {}", sum, s.nnz));
  return s;
}

void write_feature_stats(const FeatureStats& stats, const std::string& path, const std::string& comment) {
  std::string out;
  if (!comment.empty()) {
    const std::string_view text(comment);
    for (size_t start = 0; start <= text.size();) {
      const size_t end = std::min(text.find('\n', start), text.size());
      out += "# ";
      out += text.substr(start, end - start);
      out += '\n';
      start = end + 1;
    }
  }
  out += fmt::format("rows {}\ncolumns {}\nnnz {}\nrow_nnz\n", stats.rows, stats.columns, stats.nnz);
  for (size_t i = 0; i < stats.row_nnz.size(); ++i) {
    out += fmt::format("{}", stats.row_nnz[i]);
    out += (i % 20 == 19 || i + 1 == stats.row_nnz.size()) ? '\n' : ' ';
  }
  write_file_atomic(path, out);
}

std::vector<std::int32_t> load_labels(const std::string& path, std::int64_t num_nodes) {
  if (num_nodes < 0 || num_nodes > CsrGraph::kMaxNodes)
    throw InputError(SourceLoc{path}, "", fmt::format("node count {} is outside [0, {}]", num_nodes, CsrGraph::kMaxNodes));
  std::int64_t max_id = -1;
  const std::vector<LabelEntry> entries = read_labels(path, 0, max_id);
  return fill_labels(path, entries, num_nodes);
}

GraphDataset load_planetoid(const std::string& dir, const std::string& name) {
  const std::string base = (std::filesystem::path(dir) / name).string();
  const std::string edges_path = base + ".edges.txt", features_path = base + ".features.txt",
                    stats_path = base + ".feature_stats.txt", labels_path = base + ".labels.txt";
  if (!exists(edges_path)) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
      throw InputError(SourceLoc{dir}, "", fmt::format("dataset folder not found (looking for {}.edges.txt)", name));
    throw InputError(SourceLoc{edges_path}, "", "dataset edge file not found");
  }
  GraphDataset d;
  const bool coo_features = exists(features_path);
  if (coo_features) d.features = load_sparse_features(features_path);
  else if (exists(stats_path)) d.features = load_feature_stats(stats_path);
  const std::int64_t declared = d.features ? d.features->rows : 0;
  // The file the node count comes from, named by a memory-limit error.
  const std::string& count_path = declared == 0 ? edges_path : coo_features ? features_path : stats_path;

  std::int64_t max_edge_id = -1, max_label_id = -1;
  std::vector<Edge> edges = read_edges(edges_path, declared, max_edge_id);
  std::vector<LabelEntry> labels;
  const bool have_labels = exists(labels_path);
  if (have_labels) labels = read_labels(labels_path, declared, max_label_id);
  const std::int64_t n = declared > 0 ? declared : std::max(max_edge_id, max_label_id) + 1;
  d.graph = graph_from_edges(count_path, name, n, std::move(edges), true);
  if (have_labels) {
    d.labels = fill_labels(labels_path, labels, n);
    for (const std::int32_t c : d.labels) d.num_classes = std::max(d.num_classes, c + 1);
  }
  return d;
}

}  // namespace strata
