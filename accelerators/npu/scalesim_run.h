// `strata run --scalesim-config FILE.cfg --scalesim-topology FILE.csv [-o DIR]`: runs SCALE-Sim's
// own input files. Strata builds an experiment from them (scalesim_experiment.yaml in DIR: one
// NPU core with the config's array in `timing: scalesim_compat`, scratchpad of the three SRAMs'
// total, the topology as a scalesim_topology workload), runs it, and writes SCALE-Sim's three
// reports (COMPUTE_REPORT.csv, DETAILED_ACCESS_REPORT.csv, BANDWIDTH_REPORT.csv) next to
// Strata's own files, with SCALE-Sim's numbers reproduced exactly (scalesim_compat.h).
#pragma once

#include <string>

namespace strata {

// The experiment YAML for SCALE-Sim files (paths absolute). Throws InputError for bad files.
std::string scalesim_experiment_yaml(const std::string& config, const std::string& topology);
// Writes the three reports for those files into `dir`.
void write_scalesim_reports(const std::string& config, const std::string& topology, const std::string& dir);

}  // namespace strata
