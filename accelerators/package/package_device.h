// What a device kind implements to sit in a `package` (package.h): it runs its part of a placed
// operator graph (GraphTarget) and hands the graph's collectives and transfers to the package,
// which times them over the package's links. A device kind provides the role
// kPackageDeviceRole in its spec and lowers collectives to operators that wait for the package
// (the NPU's LoweredOp::external).
//
// Cycle level: when the device reaches such an operator (its inputs are there), it calls
// CollectiveHost::reached(); the package calls complete_collective() once the collective has
// ended everywhere. Analytic: the package steps every device to its next collective
// (analytic_advance), times the collective from the devices' arrival times, and lets them go on.
#pragma once

#include <optional>

#include "workloads/graph_workload.h"
#include "workloads/opgraph/op_graph.h"

namespace strata {

inline constexpr const char* kPackageDeviceRole = "package_device";

class CollectiveHost {
 public:
  virtual ~CollectiveHost() = default;
  // Device `device` has reached operator `op` (an id of the graph the package gave it) now.
  virtual void reached(int device, OpId op) = 0;
};

class PackageDevice : public GraphTarget {
 public:
  static constexpr const char* kRole = kPackageDeviceRole;  // Component::build_child<PackageDevice>

  // Called before load_graph(): the device's index in the package and who times its collectives.
  virtual void join_package(CollectiveHost& host, int device) = 0;
  // Cycle level: the collective `op` ended now.
  virtual void complete_collective(OpId op) = 0;

  // Analytic fidelity, in steps (sim/analytic.h): evaluates up to the next collective and says
  // which one and when the device reached it (s), or nothing at the end of the graph.
  struct Reached {
    OpId op;
    double at;
  };
  virtual std::optional<Reached> analytic_advance() = 0;
  virtual void analytic_complete(OpId op, double end) = 0;
  // After the last step: accounts every block's events; returns the device's end time (s).
  virtual double analytic_finish() = 0;

  // When its last operator ended (s), after the run.
  virtual double finished_at() const = 0;
  // Candidate mappings its mapper evaluated (search effort, summed in summary.json).
  virtual double mapping_candidates() const = 0;
  // For the package's roofline figures: the device's peak FLOP/s and memory bandwidth (B/s).
  virtual double device_peak_flops() const = 0;
  virtual double device_peak_bandwidth() const = 0;
};

}  // namespace strata
