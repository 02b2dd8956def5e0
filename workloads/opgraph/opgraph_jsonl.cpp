#include "workloads/opgraph/opgraph_jsonl.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "sim/input_error.h"
#include "sim/input_file.h"
#include "sim/json_line.h"
#include "sim/number_format.h"
#include "sim/results_writer.h"
#include "sim/text.h"

namespace strata {

namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

ojson tensor_line(const Tensor& t) {
  ojson j;
  j["tensor"] = t.name;
  j["class"] = tensor_class_name(t.cls);
  j["shape"] = t.shape;
  j["format"] = t.format;
  if (!t.parts.empty()) {
    ojson parts = ojson::array();
    for (const auto& p : t.parts) parts.push_back({{"format", p.format}, {"elements", p.elements}});
    j["parts"] = parts;
  }
  j["bytes"] = t.bytes;
  return j;
}

ojson op_line(const OpGraph& g, const Operator& op) {
  ojson j;
  j["op"] = op.id;
  j["name"] = op.name;
  j["kind"] = op_kind_name(op.kind);
  j["dims"] = ojson(op.dims);
  if (!op.group_sizes.empty()) j["group_sizes"] = op.group_sizes;
  auto names = [&](const std::vector<TensorId>& ids) {
    ojson a = ojson::array();
    for (TensorId id : ids) a.push_back(g.tensor(id).name);
    return a;
  };
  j["inputs"] = names(op.inputs);
  j["outputs"] = names(op.outputs);
  j["deps"] = op.deps;
  if (!op.compute.empty()) j["compute"] = op.compute;
  if (!op.accumulate.empty()) j["accumulate"] = op.accumulate;
  if (op.layer >= 0) j["layer"] = op.layer;
  if (op.device >= 0) j["device"] = op.device;
  return j;
}

// Reads one line's JSON object, checking its keys; every error names the file and line.
class LineReader {
 public:
  LineReader(const std::string& path, int line, json j) : loc_{path, line, 0}, j_(std::move(j)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& msg) const { throw InputError(loc_, key, msg); }

  void allow_only(const std::vector<std::string>& keys) const {
    for (const auto& [key, value] : j_.items()) {
      if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
      std::string msg = "unknown key";
      if (auto best = closest_match(key, keys)) msg += fmt::format(" (did you mean '{}'?)", *best);
      fail(key, msg);
    }
  }
  bool has(const char* key) const { return j_.contains(key); }
  const json& get(const char* key) const {
    if (!j_.contains(key)) fail(key, "missing");
    return j_[key];
  }
  std::string string(const char* key) const {
    const json& v = get(key);
    if (!v.is_string()) fail(key, "must be a string");
    return v.get<std::string>();
  }
  std::int64_t integer(const char* key, std::int64_t fallback, bool required = false) const {
    if (!has(key)) {
      if (required) fail(key, "missing");
      return fallback;
    }
    return as_int(j_[key], key);
  }
  std::int64_t as_int(const json& v, const std::string& key) const {
    if (!v.is_number_integer()) fail(key, "must be an integer");
    return v.get<std::int64_t>();
  }
  std::vector<std::int64_t> ints(const char* key) const {
    const json& v = get(key);
    if (!v.is_array()) fail(key, "must be a list of integers");
    std::vector<std::int64_t> out;
    for (const auto& e : v) out.push_back(as_int(e, key));
    return out;
  }
  std::vector<std::string> strings(const char* key) const {
    const json& v = get(key);
    if (!v.is_array()) fail(key, "must be a list of tensor names");
    std::vector<std::string> out;
    for (const auto& e : v) {
      if (!e.is_string()) fail(key, "must be a list of tensor names");
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  const json& raw() const { return j_; }

 private:
  SourceLoc loc_;
  json j_;
};

void read_header(const LineReader& r, OpGraph& g) {
  r.allow_only({"format", "version", "name", "provenance", "parameters", "active_parameters"});
  if (r.string("format") != "strata-opgraph") r.fail("format", "must be \"strata-opgraph\" (is this an OpGraph trace?)");
  const auto version = r.integer("version", 0, true);
  if (version != kOpGraphSchemaVersion)
    r.fail("version", fmt::format("schema version {} is not supported (this Strata reads version {})", version,
                                  kOpGraphSchemaVersion));
  g.name = r.has("name") ? r.string("name") : "";
  if (r.has("provenance")) {
    if (!r.get("provenance").is_object()) r.fail("provenance", "must be an object");
    g.provenance = r.get("provenance");
  }
  g.parameters = r.integer("parameters", -1);
  g.active_parameters = r.integer("active_parameters", -1);
}

void read_tensor(const LineReader& r, OpGraph& g) {
  r.allow_only({"tensor", "class", "shape", "format", "bytes", "parts"});
  Tensor t;
  t.name = r.string("tensor");
  const std::string cls = r.string("class");
  auto c = find_tensor_class(cls);
  if (!c) r.fail("class", fmt::format("unknown tensor class '{}' (weights, activations, kv_cache or graph)", cls));
  t.cls = *c;
  t.shape = r.ints("shape");
  t.format = r.string("format");
  const auto bytes = r.integer("bytes", 0);
  if (bytes < 0) r.fail("bytes", "must not be negative");
  t.bytes = static_cast<std::uint64_t>(bytes);
  if (r.has("parts")) {
    const json& parts = r.get("parts");
    if (!parts.is_array()) r.fail("parts", "must be a list of {format, elements}");
    for (const auto& p : parts) {
      if (!p.is_object() || !p.contains("format") || !p["format"].is_string() || !p.contains("elements"))
        r.fail("parts", "must be a list of {format, elements}");
      t.parts.push_back({p["format"].get<std::string>(), r.as_int(p["elements"], "parts.elements")});
    }
  }
  try {
    g.add_tensor(std::move(t));
  } catch (const std::invalid_argument& e) {
    r.fail("", e.what());
  }
}

void read_op(const LineReader& r, OpGraph& g) {
  r.allow_only({"op", "name", "kind", "dims", "group_sizes", "inputs", "outputs", "deps", "compute", "accumulate",
                "layer", "device"});
  Operator op;
  const auto id = r.integer("op", 0, true);
  if (id != static_cast<std::int64_t>(g.ops().size()))
    r.fail("op", fmt::format("operator ids count up from 0 in file order: expected {}, got {}", g.ops().size(), id));
  op.name = r.has("name") ? r.string("name") : "";
  const std::string kind = r.string("kind");
  auto k = find_op_kind(kind);
  if (!k) {
    std::vector<std::string> names;
    for (const auto& info : op_kinds()) names.push_back(info.name);
    std::string msg = fmt::format("unknown operator kind '{}'", kind);
    if (auto best = closest_match(kind, names)) msg += fmt::format(" (did you mean '{}'?)", *best);
    r.fail("kind", msg);
  }
  op.kind = *k;
  const json& dims = r.get("dims");
  if (!dims.is_object()) r.fail("dims", "must be an object of integer dimensions");
  for (const auto& [name, value] : dims.items()) op.dims[name] = r.as_int(value, "dims." + name);
  if (r.has("group_sizes")) op.group_sizes = r.ints("group_sizes");
  auto tensors = [&](const char* key) {
    std::vector<TensorId> ids;
    for (const auto& name : r.strings(key)) {
      const TensorId t = g.find_tensor(name);
      if (t < 0) r.fail(key, fmt::format("unknown tensor '{}' (tensors are declared before the operators using them)", name));
      ids.push_back(t);
    }
    return ids;
  };
  op.inputs = tensors("inputs");
  op.outputs = tensors("outputs");
  if (r.has("deps"))
    for (auto d : r.ints("deps")) {
      if (d < 0 || d > std::numeric_limits<OpId>::max()) r.fail("deps", fmt::format("no operator {}", d));
      op.deps.push_back(static_cast<OpId>(d));
    }
  auto format = [&](const char* key) {
    if (!r.has(key)) return std::string();
    const std::string f = r.string(key);
    try {
      parse_quant_spec(f);
    } catch (const std::invalid_argument& e) {
      r.fail(key, e.what());
    }
    return f;
  };
  op.compute = format("compute");
  op.accumulate = format("accumulate");
  auto index = [&](const char* key) {
    const auto v = r.integer(key, -1);
    if (v < -1 || v > std::numeric_limits<std::int32_t>::max()) r.fail(key, "must be -1 (none) or a non-negative index");
    return static_cast<std::int32_t>(v);
  };
  op.layer = index("layer");
  op.device = index("device");
  try {
    g.add_op(std::move(op));
  } catch (const std::invalid_argument& e) {
    r.fail("", e.what());
  }
}

}  // namespace

std::string opgraph_jsonl(const OpGraph& g) {
  ojson header;
  header["format"] = "strata-opgraph";
  header["version"] = kOpGraphSchemaVersion;
  header["name"] = g.name;
  header["provenance"] = g.provenance;
  if (g.parameters >= 0) header["parameters"] = g.parameters;
  if (g.active_parameters >= 0) header["active_parameters"] = g.active_parameters;
  std::string out = header.dump() + "\n";
  for (const auto& t : g.tensors()) out += tensor_line(t).dump() + "\n";
  for (const auto& op : g.ops()) out += op_line(g, op).dump() + "\n";
  return out;
}

void write_opgraph_jsonl(const OpGraph& graph, const std::string& path) { write_file_atomic(path, opgraph_jsonl(graph)); }

OpGraph read_opgraph_jsonl(const std::string& path) {
  std::ifstream in;
  open_input_file(in, path, "the operator trace");
  OpGraph g;
  std::vector<int> op_lines;
  std::string text;
  int line = 0;
  bool header = false;
  while (read_line(in, text)) {
    ++line;
    const std::string t(trim(text));
    if (t.empty() || t[0] == '#') continue;
    json j = parse_json_line(text, path, line);
    if (!j.is_object()) throw InputError(SourceLoc{path, line}, "", "each line must hold one JSON object");
    LineReader r(path, line, std::move(j));
    if (!header) {
      read_header(r, g);
      header = true;
    } else if (r.has("tensor")) {
      read_tensor(r, g);
    } else if (r.has("op")) {
      read_op(r, g);
      op_lines.push_back(line);
    } else {
      r.fail("", "a line must declare a tensor (\"tensor\": ...) or an operator (\"op\": ...)");
    }
  }
  if (!header) throw InputError(SourceLoc{path}, "", "empty operator trace (the first line is the header)");
  for (const auto& op : g.ops())
    for (OpId d : op.deps)
      if (d >= static_cast<OpId>(g.ops().size()))
        throw InputError(SourceLoc{path, op_lines[static_cast<size_t>(op.id)]}, "deps",
                         fmt::format("dangling dependency: operator {} does not exist", d));
  if (OpId at = g.find_cycle(); at >= 0)
    throw InputError(SourceLoc{path, op_lines[static_cast<size_t>(at)]}, "deps",
                     fmt::format("operator '{}' is part of a dependency cycle", g.op(at).name));
  return g;
}

}  // namespace strata
