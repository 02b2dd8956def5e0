#include "accelerators/npu/register_kinds.h"

#include "accelerators/npu/npu.h"
#include "accelerators/npu/scalesim_files.h"
#include "accelerators/npu/scalesim_run.h"
#include "accelerators/npu/scalesim_workload.h"
#include "sim/cli_extension.h"
#include "sim/registry.h"

namespace strata {

namespace {

// `strata run --scalesim-config FILE.cfg --scalesim-topology FILE.csv` (scalesim_run.h).
RunImporter scalesim_importer() {
  RunImporter imp;
  imp.name = "scalesim";
  imp.label = "SCALE-Sim";
  imp.options = {{"--scalesim-config",
                  "run SCALE-Sim's files instead: its config (.cfg); writes its three reports into the result "
                  "directory as well"},
                 {"--scalesim-topology", "with --scalesim-config: its topology CSV (conv or GEMM form)"}};
  imp.experiment = [](const std::vector<std::string>& v) { return scalesim_experiment_yaml(v[0], v[1]); };
  imp.extra_files = [](const std::vector<std::string>& v, const std::string& dir) {
    write_scalesim_reports(v[0], v[1], dir);
  };
  imp.files = scalesim::kReportFiles;
  imp.written = "SCALE-Sim reports written";
  return imp;
}

}  // namespace

void register_npu_kinds(Registry& r) {
  r.add_component<Npu>();
  r.add_workload<ScaleSimTopologyWorkload>();
  r.add_run_importer(scalesim_importer());
}

}  // namespace strata
