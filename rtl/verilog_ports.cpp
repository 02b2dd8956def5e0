#include "rtl/verilog_ports.h"

#include <cstdio>
#include <filesystem>
#include <sstream>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <fmt/format.h>

#include "rtl/reference_model.h"
#include "rtl/verilator_tool.h"
#include "sim/process.h"

namespace fs = std::filesystem;
namespace pt = boost::property_tree;

namespace strata {

std::map<std::string, VerilogPort> verilog_ports(const RtlSpec& spec, const std::string& work_dir) {
  const fs::path dir = fs::path(work_dir) / "xml";
  fs::create_directories(dir);
  std::vector<std::string> args = {"--xml-only", "--top-module", spec.top, "--Mdir", dir.string(), "-Wno-fatal", "-Wno-lint", "-Wno-style"};
  for (const auto& [k, v] : spec.parameters) args.push_back(fmt::format("-G{}={}", k, v));
  for (const auto& d : spec.defines) args.push_back("+define+" + d);
  for (const auto& s : spec.sources) args.push_back(s);
  const ProcessResult r = run_process(verilator_program(), args);
  if (r.exit_code != 0)
    throw InputError(SourceLoc{spec.file}, "rtl.sources", "Verilator rejects the design: " + first_error(r.output));
  const fs::path xml = dir / fmt::format("V{}.xml", spec.top);
  pt::ptree tree;
  pt::read_xml(xml.string(), tree);
  std::map<std::string, int> widths;  // dtype id -> width
  std::map<std::string, VerilogPort> ports;
  std::function<void(const pt::ptree&)> walk = [&](const pt::ptree& node) {
    for (const auto& [tag, child] : node) {
      if (tag == "basicdtype") {
        const auto left = child.get_optional<int>("<xmlattr>.left");
        const auto right = child.get_optional<int>("<xmlattr>.right");
        widths[child.get<std::string>("<xmlattr>.id")] = left && right ? std::abs(*left - *right) + 1 : 1;
      }
      walk(child);
    }
  };
  walk(tree);
  std::function<void(const pt::ptree&, bool)> find_ports = [&](const pt::ptree& node, bool in_top) {
    for (const auto& [tag, child] : node) {
      if (tag == "module") {
        find_ports(child, child.get<std::string>("<xmlattr>.topModule", "") == "1");
      } else if (tag == "var" && in_top) {
        const auto dir = child.get_optional<std::string>("<xmlattr>.dir");
        if (!dir) continue;
        VerilogPort p;
        p.name = child.get<std::string>("<xmlattr>.name");
        p.input = *dir == "input";
        p.width = widths.count(child.get<std::string>("<xmlattr>.dtype_id")) ? widths[child.get<std::string>("<xmlattr>.dtype_id")] : 1;
        ports[p.name] = p;
      } else if (tag != "<xmlattr>") {
        find_ports(child, in_top);
      }
    }
  };
  find_ports(tree, false);
  if (ports.empty()) throw InputError(SourceLoc{spec.file}, "rtl.top", fmt::format("module '{}' has no ports", spec.top));
  return ports;
}

void check_port_map(const RtlSpec& spec, const std::map<std::string, VerilogPort>& ports) {
  auto names = [&] {
    std::vector<std::string> v;
    for (const auto& [n, p] : ports) v.push_back(n);
    return fmt::format("{}", fmt::join(v, ", "));
  };
  auto port = [&](const std::string& name, bool input, int width, const SourceLoc& loc, const std::string& key) {
    auto it = ports.find(name);
    if (it == ports.end())
      throw InputError(loc, key, fmt::format("module '{}' has no port '{}' (ports: {})", spec.top, name, names()));
    if (it->second.input != input)
      throw InputError(loc, key, fmt::format("port '{}' is an {}; expected an {}", name, it->second.input ? "input" : "output",
                                             input ? "input" : "output"));
    if (width > 0 && it->second.width != width)
      throw InputError(loc, key, fmt::format("port '{}' is {} bits wide; expected {}", name, it->second.width, width));
    return it->second;
  };
  const ConfigNode* rtl = spec.config.find("rtl");
  port(spec.clock, true, 1, rtl->find("clock")->loc(), "rtl.clock");
  port(spec.reset, true, 1, rtl->find("reset")->find("port")->loc(), "rtl.reset.port");
  const ReferenceModel* model = spec.reference.get();
  for (const StreamPorts& s : spec.streams) {
    const std::string key = "streams." + s.stream;
    const SourceLoc loc = s.loc.line ? s.loc : spec.streams_loc;
    const StreamDecl* decl = nullptr;
    for (const StreamDecl& d : model->streams())
      if (d.name == s.stream) decl = &d;
    port(s.valid, decl->input, 1, loc, key + ".valid");
    if (!s.ready.empty()) port(s.ready, !decl->input, 1, loc, key + ".ready");
    if (!s.last.empty()) port(s.last, decl->input, 1, loc, key + ".last");
    int total = 0;
    for (const auto& d : s.data) total += port(d, decl->input, 0, loc, key + ".data").width;
    if (total != decl->width())
      throw InputError(loc, key + ".data",
                       fmt::format("{} {} bits wide; the model's stream '{}' carries {} x {}-bit elements = {} bits",
                                   s.data.size() == 1 ? "port '" + s.data.front() + "' is" : "the data ports are together",
                                   total, s.stream, decl->elements, decl->element_bits, decl->width()));
  }
}

}  // namespace strata
