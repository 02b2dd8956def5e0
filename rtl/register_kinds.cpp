#include "rtl/register_kinds.h"

#include <memory>

#include <CLI/CLI.hpp>

#include "rtl/reference_model.h"
#include "rtl/rtl_check.h"
#include "sim/cli_extension.h"
#include "sim/registry.h"

namespace strata {

namespace {

CliCommand rtl_check_command() {
  CliCommand c;
  c.name = "rtl-check";
  c.description = "co-simulate Verilog (Verilator) against a Strata reference model";
  c.define = [](CLI::App& app, const Registry& registry) {
    struct Args {
      std::string spec, output, backend;
    };
    auto a = std::make_shared<Args>();
    app.add_option("spec", a->spec, "rtl-check file (YAML)")->required();
    app.add_option("-o,--output", a->output, "result directory (default results/<name>/)");
    app.add_option("--backend", a->backend, "systemc, cpp or both (default: the file's backend)")
        ->check(CLI::IsMember({"systemc", "cpp", "both"}));
    return [a, &registry] { return rtl_check(a->spec, a->output, a->backend, registry); };
  };
  return c;
}

}  // namespace

void register_rtl_kinds(Registry& registry) {
  register_reference_models(registry);
  registry.add_command(rtl_check_command());
}

}  // namespace strata
