#include "rtl/rtl_spec.h"

#include <charconv>
#include <filesystem>

#include <fmt/format.h>

#include "rtl/reference_model.h"
#include "sim/config_loader.h"
#include "sim/config_values.h"
#include "sim/text.h"

namespace fs = std::filesystem;

namespace strata {
namespace {

double fraction(const ConfigNode& n, const std::string& key) {
  double v = 0;
  const std::string& t = config_text(n, key);
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || ptr != t.data() + t.size() || v < 0 || v >= 1)
    config_fail(n, key, fmt::format("expected a probability in [0, 1), got \"{}\"", t));
  return v;
}

std::string relative_file(const ConfigNode& n, const std::string& key) {
  fs::path p(config_text(n, key));
  if (p.is_relative()) p = fs::path(n.loc().file).parent_path() / p;
  p = fs::absolute(p).lexically_normal();
  // error_code overload: the throwing one raises filesystem_error (not InputError) for a name too
  // long for the OS (ENAMETOOLONG), found by tests/fuzz (regressions/rtl_spec/).
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) config_fail(n, key, fmt::format("no such file \"{}\"", config_text(n, key)));
  return p.string();
}

}  // namespace

RtlSpec load_rtl_spec(const std::string& path, const Registry& registry) {
  RtlSpec s;
  s.file = path;
  s.config = load_config(path);
  const ConfigNode& c = s.config;
  config_only_keys(c, "", {"name", "description", "rtl", "model", "streams", "stimulus", "backend", "vcd_window", "max_cycles"});
  s.name = c.find("name") ? config_text(*c.find("name"), "name") : fs::path(path).stem().string();

  const ConfigNode& rtl = config_required(c, "rtl", "rtl");
  config_only_keys(rtl, "rtl", {"sources", "top", "parameters", "defines", "clock", "reset"});
  const ConfigNode& sources = config_required(rtl, "sources", "rtl.sources");
  if (!sources.is_sequence() || sources.items().empty()) config_fail(sources, "rtl.sources", "expected a list of Verilog files");
  for (const auto& f : sources.items()) s.sources.push_back(relative_file(f, "rtl.sources"));
  s.top = config_text(config_required(rtl, "top", "rtl.top"), "rtl.top");
  if (const ConfigNode* p = rtl.find("parameters")) {
    if (!p->is_map()) config_fail(*p, "rtl.parameters", "expected a mapping of parameter names to values");
    for (const auto& [k, v] : p->entries()) s.parameters.emplace_back(k, config_text(v, "rtl.parameters." + k));
  }
  if (const ConfigNode* d = rtl.find("defines")) {
    if (!d->is_sequence()) config_fail(*d, "rtl.defines", "expected a list of names");
    for (const auto& item : d->items()) s.defines.push_back(config_text(item, "rtl.defines"));
  }
  s.clock = config_text(config_required(rtl, "clock", "rtl.clock"), "rtl.clock");
  const ConfigNode& reset = config_required(rtl, "reset", "rtl.reset");
  config_only_keys(reset, "rtl.reset", {"port", "active", "cycles"});
  s.reset = config_text(config_required(reset, "port", "rtl.reset.port"), "rtl.reset.port");
  if (const ConfigNode* a = reset.find("active")) {
    const std::string& v = config_text(*a, "rtl.reset.active");
    if (v != "low" && v != "high") config_fail(*a, "rtl.reset.active", fmt::format("\"{}\" is not one of low, high", v));
    s.reset_active_low = v == "low";
  }
  if (const ConfigNode* n = reset.find("cycles")) s.reset_cycles = static_cast<int>(config_integer(*n, "rtl.reset.cycles", 1, 1000));

  ConfigNode model = config_required(c, "model", "model");
  if (!model.is_map()) config_fail(model, "model", "expected a mapping with kind and parameters");
  const std::string kind = config_text(config_required(model, "kind", "model.kind"), "model.kind");
  const KindSpec* spec = registry.find(kReferenceModelCategory, kind);
  if (!spec) {
    const std::vector<std::string> names = registry.names(kReferenceModelCategory);
    std::string msg = fmt::format("unknown reference model '{}' (models: {})", kind, fmt::join(names, ", "));
    if (auto best = closest_match(kind, names)) msg += fmt::format("; did you mean '{}'?", *best);
    config_fail(*model.find("kind"), "model.kind", msg);
  }
  s.model = validate(model, *spec, "model", registry);
  s.reference = registry.make<ReferenceModel>(s.model);
  const ReferenceModel* ref = s.reference.get();

  const ConfigNode& streams = config_required(c, "streams", "streams");
  if (!streams.is_map()) config_fail(streams, "streams", "expected a mapping of the model's streams to ports");
  s.streams_loc = streams.loc();
  for (const auto& [name, v] : streams.entries()) {
    const std::string key = "streams." + name;
    const StreamDecl* decl = nullptr;
    for (const StreamDecl& d : ref->streams())
      if (d.name == name) decl = &d;
    if (!decl) {
      std::vector<std::string> names;
      for (const StreamDecl& d : ref->streams()) names.push_back(d.name);
      config_fail(v, key, fmt::format("model '{}' has no stream '{}' (streams: {})", kind, name, fmt::join(names, ", ")));
    }
    config_only_keys(v, key, {"valid", "ready", "data", "last", "latency_tolerance"});
    StreamPorts p;
    p.stream = name;
    p.loc = v.loc();
    p.valid = config_text(config_required(v, "valid", key + ".valid"), key + ".valid");
    if (const ConfigNode* r = v.find("ready")) p.ready = config_text(*r, key + ".ready");
    else if (!decl->input) config_fail(v, key + ".ready", "missing: an output stream needs a ready port");
    const ConfigNode& data = config_required(v, "data", key + ".data");
    if (data.is_sequence())
      for (const auto& item : data.items()) p.data.push_back(config_text(item, key + ".data"));
    else p.data.push_back(config_text(data, key + ".data"));
    if (const ConfigNode* l = v.find("last")) p.last = config_text(*l, key + ".last");
    if (decl->has_last && p.last.empty()) config_fail(v, key + ".last", fmt::format("missing: the model's stream '{}' has a last flag", name));
    if (!decl->has_last && !p.last.empty()) config_fail(*v.find("last"), key + ".last", fmt::format("the model's stream '{}' has no last flag", name));
    if (const ConfigNode* t = v.find("latency_tolerance")) {
      if (decl->input) config_fail(*t, key + ".latency_tolerance", "goes with output streams");
      p.latency_tolerance = static_cast<int>(config_integer(*t, key + ".latency_tolerance", 0, 1000000));
    }
    s.streams.push_back(std::move(p));
  }
  for (const StreamDecl& d : ref->streams()) {
    bool mapped = false;
    for (const auto& p : s.streams) mapped = mapped || p.stream == d.name;
    if (!mapped) config_fail(streams, "streams." + d.name, fmt::format("missing: model '{}' needs its stream '{}' mapped", kind, d.name));
  }

  const ConfigNode& stim = config_required(c, "stimulus", "stimulus");
  config_only_keys(stim, "stimulus", {"generate", "file"});
  const ConfigNode* gen = stim.find("generate");
  const ConfigNode* file = stim.find("file");
  if (!!gen == !!file) config_fail(stim, "stimulus", "give generate or file (one of them)");
  if (file) s.stimulus_file = relative_file(*file, "stimulus.file");
  if (gen) {
    config_only_keys(*gen, "stimulus.generate", {"transactions", "length", "seed", "bubbles", "stalls"});
    if (const ConfigNode* n = gen->find("transactions")) s.transactions = static_cast<int>(config_integer(*n, "stimulus.generate.transactions", 1, 10000000));
    if (const ConfigNode* n = gen->find("length")) s.length = static_cast<int>(config_integer(*n, "stimulus.generate.length", 1, 1000000));
    if (const ConfigNode* n = gen->find("seed")) s.seed = static_cast<std::uint64_t>(config_integer(*n, "stimulus.generate.seed", 0, INT64_MAX));
    if (const ConfigNode* n = gen->find("bubbles")) s.bubbles = fraction(*n, "stimulus.generate.bubbles");
    if (const ConfigNode* n = gen->find("stalls")) s.stalls = fraction(*n, "stimulus.generate.stalls");
  }
  s.backends = {"systemc", "cpp"};
  if (const ConfigNode* b = c.find("backend")) {
    const std::string& v = config_text(*b, "backend");
    if (v == "systemc" || v == "cpp") s.backends = {v};
    else if (v != "both") config_fail(*b, "backend", fmt::format("\"{}\" is not one of systemc, cpp, both", v));
  }
  if (const ConfigNode* n = c.find("vcd_window")) s.vcd_window = static_cast<int>(config_integer(*n, "vcd_window", 0, 1000000));
  if (const ConfigNode* n = c.find("max_cycles")) s.max_cycles = static_cast<std::uint64_t>(config_integer(*n, "max_cycles", 1, INT64_MAX));
  return s;
}

}  // namespace strata
