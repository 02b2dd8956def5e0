#include "rtl/rtl_check.h"

#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rtl/comparison.h"
#include "rtl/reference_model.h"
#include "rtl/rtl_build.h"
#include "rtl/stimulus_file.h"
#include "rtl/verilog_ports.h"
#include "sim/results_writer.h"

namespace fs = std::filesystem;

namespace strata {

int rtl_check(const std::string& spec_path, const std::string& output, const std::string& backend, const Registry& registry) {
  RtlSpec spec = load_rtl_spec(spec_path, registry);
  if (!backend.empty()) spec.backends = backend == "both" ? std::vector<std::string>{"systemc", "cpp"} : std::vector<std::string>{backend};
  const std::string dir = output.empty() ? (fs::path("results") / spec.name).string() : output;
  const ReferenceModel* model = spec.reference.get();
  const std::vector<StreamDecl>& decls = model->streams();
  const Stimulus stimulus = spec.stimulus_file.empty()
                                ? model->generate(spec.transactions, spec.length, spec.seed, spec.bubbles, spec.stalls)
                                : read_stimulus(spec.stimulus_file, decls);
  fs::create_directories(dir);
  const auto ports = verilog_ports(spec, (fs::path(dir) / ".verilator").string());
  check_port_map(spec, ports);

  const std::string stim_path = (fs::path(dir) / "stimulus.txt").string();
  write_stimulus(stim_path, stimulus, decls);
  const std::vector<Fire> expected = model->run(stimulus);
  write_events((fs::path(dir) / "events-model.txt").string(), expected, decls);
  std::size_t expected_outputs = 0;
  std::uint64_t model_end = 0;
  for (const Fire& f : expected) {
    model_end = std::max(model_end, f.cycle);
    for (const StreamDecl& d : decls) expected_outputs += d.name == f.stream && !d.input;
  }
  // Room for a late RTL, bounded by max_cycles.
  const std::uint64_t max_cycles = std::min(spec.max_cycles, model_end * 2 + 1000);

  nlohmann::ordered_json report;
  report["name"] = spec.name;
  report["spec"] = fs::absolute(spec_path).lexically_normal().string();
  report["top"] = spec.top;
  report["model"] = spec.model.spec->name;
  report["expected_output_beats"] = expected_outputs;
  report["backends"] = nlohmann::ordered_json::object();
  std::optional<Divergence> first;
  fmt::print("{}: {} against model {} on {} output beats\n", spec.name, spec.top, spec.model.spec->name, expected_outputs);
  for (const std::string& b : spec.backends) {
    const RtlBuild build = build_runner(spec, ports, b);
    const std::string events = (fs::path(dir) / fmt::format("events-{}.txt", b)).string();
    const RtlRun run = run_runner(build, stim_path, events, expected_outputs, max_cycles);
    const Comparison cmp = compare_fires(spec, decls, expected, read_events(events, decls));
    nlohmann::ordered_json j = to_json(cmp);
    j["cycles"] = run.cycles;
    j["seconds"] = run.seconds;
    j["cycles_per_second"] = run.seconds > 0 ? static_cast<double>(run.cycles) / run.seconds : 0;
    j["build_seconds"] = build.build_s;
    j["build_cached"] = build.cached;
    report["backends"][b] = j;
    fmt::print("  {:<8} {}: {} cycles in {:.3f} s ({:.3g} cycles/s); model latency {} cycles, RTL {}\n", b,
               cmp.match() ? "match" : "DIVERGES", run.cycles, run.seconds, j["cycles_per_second"].get<double>(),
               cmp.model.latency(), cmp.rtl.latency());
    if (cmp.first) {
      const Divergence& d = *cmp.first;
      fmt::print("  first divergence at cycle {}: {} on {} ({}, beat {}): expected {}, got {}\n", d.cycle, d.what, d.port,
                 d.stream, d.beat, d.expected, d.actual);
      if (!first) first = d;
    }
  }
  if (first) {
    // The waveform around it, from the plain C++ build (built now if only SystemC ran).
    const RtlBuild cpp = build_runner(spec, ports, "cpp");
    const std::uint64_t from = first->cycle > static_cast<std::uint64_t>(spec.vcd_window) ? first->cycle - spec.vcd_window : 0;
    const std::string vcd = (fs::path(dir) / "divergence.vcd").string();
    run_runner(cpp, stim_path, (fs::path(dir) / "events-vcd.txt").string(), expected_outputs, max_cycles, vcd, from,
               first->cycle + static_cast<std::uint64_t>(spec.vcd_window));
    fs::remove(fs::path(dir) / "events-vcd.txt");
    report["vcd"] = vcd;
    report["vcd_cycles"] = {from, first->cycle + static_cast<std::uint64_t>(spec.vcd_window)};
    fmt::print("  waveform around it: {}\n", vcd);
  }
  report["match"] = !first.has_value();
  write_file_atomic((fs::path(dir) / "report.json").string(), report.dump(2) + "\n");
  fmt::print("report: {}\n", (fs::path(dir) / "report.json").string());
  return first ? 3 : 0;
}

}  // namespace strata
