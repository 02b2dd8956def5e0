// A workload drives a hardware design: it elaborates whatever issues the work (a trace player,
// a mapper's command streams) and binds it to the hardware root.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace strata {

class Component;

class Workload {
 public:
  virtual ~Workload() = default;
  // Called once, during elaboration, after the hardware exists. Throws InputError when the
  // hardware cannot run this workload (naming the key that chose it).
  virtual void bind(Component& hardware) = 0;
  // True once every piece of work has been issued and has completed.
  virtual bool finished() const = 0;
  // Fraction of the work done, in [0, 1], when known (for progress and ETA).
  virtual std::optional<double> progress() const { return std::nullopt; }

  // Hardware-independent figures (`strata workload info`): one JSON object, and the same as
  // text; nullopt for kinds that have none. Called without bind().
  virtual std::optional<nlohmann::ordered_json> info() const { return std::nullopt; }
  virtual std::string info_text() const { return {}; }
  // Writes the workload as an operator trace (`strata trace export`); false for kinds that
  // are not operator graphs. Called without bind().
  virtual bool export_trace(const std::string& path) const { return false; }
};

}  // namespace strata
