// What the folders above sim/ add to the `strata` command line, registered with the kinds
// (Registry::add_command, Registry::add_run_importer) so that sim/app/cli.cpp names no design:
//   - a subcommand (rtl/'s `rtl-check`): its arguments declared on its CLI11 app, and what runs
//     it once they are parsed;
//   - a `strata run` importer (accelerators/npu/'s SCALE-Sim files): options that together
//     name a peer's input files, turned into an experiment that runs like any other; the
//     generated experiment is kept in the result as NAME_experiment.yaml, next to the files
//     the importer writes there (SCALE-Sim's reports).
// Errors are reported as for every command: InputError one line and exit 2, and so on.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace strata {

class Registry;

struct CliCommand {
  std::string name;         // `strata NAME`
  std::string description;  // one line in `strata --help`
  // Declares the arguments on `app` (storage held by the returned function) and returns what
  // runs the command: its exit code.
  std::function<std::function<int()>(CLI::App& app, const Registry& registry)> define;
};

struct RunImporter {
  std::string name;   // file stem of the kept experiment: NAME_experiment.yaml
  std::string label;  // in messages: "give an experiment file or LABEL files, not both"
  struct Option {
    std::string flag;  // "--scalesim-config"
    std::string help;
  };
  // Given together or not at all; the first names the source of the experiment's errors.
  std::vector<Option> options;
  // The options' values (in `options` order) -> experiment YAML. Throws InputError for bad files.
  std::function<std::string(const std::vector<std::string>& values)> experiment;
  // Writes the importer's own files into `dir` (the result's staging directory).
  std::function<void(const std::vector<std::string>& values, const std::string& dir)> extra_files;
  // The names extra_files writes. With NAME_experiment.yaml they belong to a run's result: a
  // later run into the same directory that does not write them removes them.
  std::vector<std::string> files;
  std::string written;  // what the run prints after its status: "SCALE-Sim reports written"
};

}  // namespace strata
