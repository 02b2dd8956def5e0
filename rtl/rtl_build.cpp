#include "rtl/rtl_build.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include "rtl/reference_model.h"
#include "rtl/runner_template.h"
#include "rtl/verilator_tool.h"
#include "sim/process.h"
#include "sim/results_writer.h"
#include "sim/schema.h"
#include "sim/text.h"

namespace fs = std::filesystem;

namespace strata {
namespace {

fs::path cache_root() {
  if (const char* e = std::getenv("STRATA_RTL_CACHE"); e && *e) return e;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "strata" / "rtl";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "strata" / "rtl";
  return fs::temp_directory_path() / "strata-rtl";
}

// The accessors of one port for the chosen backend.
std::string port_glue(const VerilogPort& p, bool systemc) {
  const std::string& n = p.name;
  const int w = p.width;
  const int words = (w + 31) / 32;
  std::string set, get;
  if (systemc) {
    const std::string type = w == 1 ? "bool" : w <= 32 ? "uint32_t" : w <= 64 ? "uint64_t" : fmt::format("sc_dt::sc_bv<{}>", w);
    std::string decl = fmt::format("static sc_core::sc_signal<{}>* s_{};\n", type, n);
    if (w <= 64) {
      set = fmt::format("s_{}->write(static_cast<{}>(v[0] | (v.size() > 1 ? static_cast<uint64_t>(v[1]) << 32 : 0)));", n, type);
      get = fmt::format("const uint64_t x = static_cast<uint64_t>(s_{}->read()); return Words{{static_cast<uint32_t>(x){}}};", n,
                        w > 32 ? ", static_cast<uint32_t>(x >> 32)" : "");
    } else {
      set = fmt::format("sc_dt::sc_bv<{0}> b; for (int i = 0; i < {1}; ++i) b.range(std::min({0} - 1, 32 * i + 31), 32 * i) = v[i]; s_{2}->write(b);", w, words, n);
      get = fmt::format("const sc_dt::sc_bv<{0}> b = s_{2}->read(); Words x({1}); for (int i = 0; i < {1}; ++i) x[i] = b.range(std::min({0} - 1, 32 * i + 31), 32 * i).to_uint(); return x;", w, words, n);
    }
    return decl + fmt::format("static Port port_{0} = {{{1}, [](const Words& v) {{ {2} }}, []() -> Words {{ {3} }}}};\n", n, w,
                              p.input ? set : "(void)v;", get);
  }
  if (w <= 64) {
    set = fmt::format("top->{} = v[0] | (v.size() > 1 ? static_cast<uint64_t>(v[1]) << 32 : 0);", n);
    get = fmt::format("const uint64_t x = top->{}; return Words{{static_cast<uint32_t>(x){}}};", n, w > 32 ? ", static_cast<uint32_t>(x >> 32)" : "");
  } else {
    set = fmt::format("for (int i = 0; i < {}; ++i) top->{}[i] = v[i];", words, n);
    get = fmt::format("Words x({0}); for (int i = 0; i < {0}; ++i) x[i] = top->{1}[i]; return x;", words, n);
  }
  return fmt::format("static Port port_{0} = {{{1}, [](const Words& v) {{ {2} }}, []() -> Words {{ {3} }}}};\n", n, w,
                     p.input ? set : "(void)v;", get);
}

std::string ports_inc(const RtlSpec& spec, const std::map<std::string, VerilogPort>& ports, bool systemc) {
  std::string s = systemc ? "static std::unique_ptr<TopModule> top;\n"
                          : "static std::unique_ptr<VerilatedContext> ctx;\nstatic std::unique_ptr<TopModule> top;\n"
                            "static std::unique_ptr<VerilatedVcdC> tfp;\nstatic uint64_t sim_time = 0;\n";
  for (const auto& [name, p] : ports) s += port_glue(p, systemc);
  const std::string active = spec.reset_active_low ? "0" : "1", idle = spec.reset_active_low ? "1" : "0";
  s += fmt::format("static void set_reset(bool active) {{ port_{}.set(Words{{active ? {}u : {}u}}); }}\n", spec.reset, active, idle);
  if (systemc) {
    s += "static void open_design(const char*) {\n  top = std::make_unique<TopModule>(\"top\");\n";
    for (const auto& [name, p] : ports) {
      const int w = p.width;
      const std::string type = w == 1 ? "bool" : w <= 32 ? "uint32_t" : w <= 64 ? "uint64_t" : fmt::format("sc_dt::sc_bv<{}>", w);
      s += fmt::format("  s_{0} = new sc_core::sc_signal<{1}>(\"{0}\");\n  top->{0}(*s_{0});\n", name, type);
    }
    s += fmt::format("  sc_core::sc_start(sc_core::SC_ZERO_TIME);\n}}\n"
                     "static void clock_low(uint64_t, bool) {{ s_{0}->write(false); sc_core::sc_start(1, sc_core::SC_NS); }}\n"
                     "static void clock_high(uint64_t, bool) {{ s_{0}->write(true); sc_core::sc_start(1, sc_core::SC_NS); }}\n"
                     // The module outlives sc_main on purpose: deleting it during static destruction,
                     // after SystemC's context is gone, aborts.
                     "static void close_design() {{ top->final(); (void)top.release(); }}\n",
                     spec.clock);
  } else {
    s += fmt::format(
        "static void open_design(const char* vcd) {{\n  ctx = std::make_unique<VerilatedContext>();\n"
        "  if (vcd) ctx->traceEverOn(true);\n  top = std::make_unique<TopModule>(ctx.get());\n"
        "  if (vcd) {{ tfp = std::make_unique<VerilatedVcdC>(); top->trace(tfp.get(), 99); tfp->open(vcd); }}\n"
        "  top->{0} = 0; top->eval();\n}}\n"
        "static void clock_low(uint64_t, bool dump) {{ top->{0} = 0; top->eval(); sim_time += 500; if (dump && tfp) tfp->dump(sim_time); }}\n"
        "static void clock_high(uint64_t, bool dump) {{ top->{0} = 1; top->eval(); sim_time += 500; if (dump && tfp) tfp->dump(sim_time); }}\n"
        // Torn down here, in order: left to static destruction, the trace outlives Verilator's
        // own statics and crashes.
        "static void close_design() {{ if (tfp) tfp->close(); top->final(); tfp.reset(); top.reset(); ctx.reset(); }}\n",
        spec.clock);
  }
  // The streams, in the model's order.
  s += "static std::vector<Stream> make_streams() {\n  std::vector<Stream> v;\n";
  const ReferenceModel* model = spec.reference.get();
  for (const StreamDecl& d : model->streams()) {
    for (const StreamPorts& p : spec.streams) {
      if (p.stream != d.name) continue;
      auto ptr = [](const std::string& n) { return n.empty() ? std::string("nullptr") : "&port_" + n; };
      std::string data;
      for (const auto& x : p.data) data += (data.empty() ? "" : ", ") + ptr(x);
      s += fmt::format("  v.push_back(Stream{{\"{}\", {}, {}, {}, {}, {{{}}}}});\n", d.name, d.input ? "true" : "false", ptr(p.valid),
                       ptr(p.ready), ptr(p.last), data);
    }
  }
  s += "  return v;\n}\n";
  return s;
}

std::string cmake_lists(const RtlSpec& spec, bool systemc) {
  std::string args = "-Wno-fatal -Wno-lint -Wno-style";
  for (const auto& [k, v] : spec.parameters) args += fmt::format(" -G{}={}", k, v);
  for (const auto& d : spec.defines) args += " +define+" + d;
  std::string sources;
  for (const auto& f : spec.sources) sources += " \"" + f + "\"";
  std::string s = "cmake_minimum_required(VERSION 3.25)\nproject(strata_rtl_runner CXX)\nset(CMAKE_CXX_STANDARD 17)\n"
                  "find_package(verilator 5.0 REQUIRED)\nadd_executable(runner runner.cpp)\n"
                  "target_include_directories(runner PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})\n";
  if (systemc) {
    // Debian's SystemC is C++17-built and ships only a pkg-config file.
    s += "find_package(PkgConfig REQUIRED)\npkg_check_modules(SYSTEMC REQUIRED IMPORTED_TARGET systemc)\n"
         "target_compile_definitions(runner PRIVATE STRATA_RTL_SYSTEMC SC_CPLUSPLUS=201703L)\n";
    s += fmt::format("verilate(runner SYSTEMC SOURCES{} TOP_MODULE {} PREFIX V{} VERILATOR_ARGS {})\n", sources, spec.top, spec.top, args);
    s += "target_link_libraries(runner PRIVATE PkgConfig::SYSTEMC)\n";
  } else {
    s += fmt::format("verilate(runner TRACE SOURCES{} TOP_MODULE {} PREFIX V{} VERILATOR_ARGS {})\n", sources, spec.top, spec.top, args);
  }
  return s;
}

}  // namespace

RtlBuild build_runner(const RtlSpec& spec, const std::map<std::string, VerilogPort>& ports, const std::string& backend) {
  const bool systemc = backend == "systemc";
  const std::string design_h = fmt::format("#include \"V{0}.h\"\nusing TopModule = V{0};\n#define RESET_CYCLES {1}\n", spec.top, spec.reset_cycles);
  const std::string inc = ports_inc(spec, ports, systemc);
  const std::string cmake = cmake_lists(spec, systemc);
  std::string key = std::string(kRtlRunnerSource) + design_h + inc + cmake;
  for (const auto& f : spec.sources) key += f + read_text_file(f);
  const fs::path dir = cache_root() / fmt::format("{}-{}-{}", spec.top, backend, text_hash(key).substr(0, 16));
  RtlBuild b;
  b.runner = (dir / "build" / "runner").string();
  fs::create_directories(dir);
  // One build per design at a time: concurrent checks of the same design wait for it.
  const int lock = ::open((dir / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }
  } unlock{lock};
  if (lock >= 0) ::flock(lock, LOCK_EX);
  if (fs::exists(b.runner)) {
    b.cached = true;
    return b;
  }
  write_file_atomic((dir / "runner.cpp").string(), kRtlRunnerSource);
  write_file_atomic((dir / "design.h").string(), design_h);
  write_file_atomic((dir / "ports.inc").string(), inc);
  write_file_atomic((dir / "CMakeLists.txt").string(), cmake);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::string> configure = {"-S", dir.string(), "-B", (dir / "build").string(), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"};
  if (run_process("ccache", {"--version"}).exit_code == 0) {
    configure.push_back("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache");
    // Next to the builds, so it works where $HOME is read-only or absent.
    if (!std::getenv("CCACHE_DIR")) ::setenv("CCACHE_DIR", (cache_root() / "ccache").c_str(), 0);
  }
  ProcessResult r = run_process("cmake", configure);
  const unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  if (r.exit_code == 0) r = run_process("cmake", {"--build", (dir / "build").string(), "-j", std::to_string(jobs)});
  write_file_atomic((dir / "build.log").string(), r.output);
  if (r.exit_code != 0) {
    std::error_code ec;
    fs::remove_all(dir / "build", ec);
    throw InputError(SourceLoc{spec.file}, "rtl.sources",
                     fmt::format("the {} build failed ({}): {}", backend, (dir / "build.log").string(), first_error(r.output)));
  }
  b.build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return b;
}

RtlRun run_runner(const RtlBuild& b, const std::string& stimulus, const std::string& events, std::size_t expected_outputs,
                  std::uint64_t max_cycles, const std::string& vcd, std::uint64_t from, std::uint64_t to) {
  std::vector<std::string> args = {stimulus, events, std::to_string(expected_outputs), std::to_string(max_cycles)};
  if (!vcd.empty()) {
    args.push_back(vcd);
    args.push_back(std::to_string(from));
    args.push_back(std::to_string(to));
  }
  const ProcessResult r = run_process(b.runner, args);
  if (r.exit_code != 0) throw std::runtime_error(fmt::format("{} failed ({}): {}", b.runner, r.exit_code, first_error(r.output)));
  RtlRun run;
  std::ifstream in(events);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("end ", 0) == 0) std::istringstream(line.substr(4)) >> run.cycles >> run.seconds;
  return run;
}

}  // namespace strata
