// Component kind `package`: several devices (chips, or chiplets of one package) with their own
// memories, joined by links, running one operator graph together.
//
//   devices      identical devices built from the `device` slot (any kind providing the
//                package_device role: `npu`), named device0, device1, ...
//   links        one `chip_link` (models/link/) per direction of every connection of the
//                `topology` (link_network.h), all from the `link` slot
//   placement    the graph split over the devices (placement.h: tensor, pipeline and expert
//                parallel); each device maps and runs its part
//   collectives  the all-reduces, all-to-alls and stage-to-stage transfers of the placed
//                graphs, timed over the links (collectives.h) once every member reached them
//
// Cycle level: the devices simulate their parts; when the last member of a collective reaches
// it, its transfers reserve the links from that moment (so concurrent collectives and
// transfers queue on shared links), and the members go on when its last byte arrived.
// Analytic: each device evaluates its part in closed form up to a collective; the collective is
// timed on idle links from its last member's arrival.
//
// Results: `<package>.latency` (the last device's end), `.flops` (the unplaced graph's),
// `.collectives.<kind>.{count,bytes,time,wait}`, `.peak_flops` and `.peak_bandwidth` (sums over
// the devices), the placement's `placement.{split_ops,whole_ops,pinned_ops}`, and every
// device's and link's own statistics under their names. summary.json: latency_s, flops,
// mapper_candidates (over the devices), collective_time_s, link_bytes.
#pragma once

#include <memory>
#include <queue>
#include <vector>

#include "accelerators/package/link_network.h"
#include "accelerators/package/package_device.h"
#include "accelerators/package/placement.h"
#include "models/link/chip_link.h"
#include "sim/analytic.h"
#include "sim/component.h"

namespace strata {

class Package : public Component, public GraphTarget, public CollectiveHost, public AnalyticModel {
 public:
  static KindSpec spec();
  Package(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx);
  ~Package() override;

  // GraphTarget
  void load_graph(std::shared_ptr<const OpGraph> graph) override;
  bool graph_finished() const override;
  std::optional<double> graph_progress() const override;
  // CollectiveHost
  void reached(int device, OpId op) override;
  // AnalyticModel
  double evaluate_analytic() override;

  void finalize(const sc_core::sc_time& end) override;

 private:
  struct KindStats {
    Counter* count;
    Counter* bytes;
    Scalar* time;
    Scalar* wait;
  };
  double time_collective(int c, double start, bool idle);
  // The collective `device` waits at, if every one of its members waits at it too.
  std::optional<int> ready_collective(const std::vector<std::optional<PackageDevice::Reached>>& waiting,
                                      int device) const;
  void complete_due();
  KindStats& kind_stats(CollectiveKind kind);

  std::vector<RoleChild<PackageDevice>> devices_;
  std::vector<std::unique_ptr<ChipLink>> links_;
  std::unique_ptr<LinkNetwork> network_;
  PlacementPlan plan_;
  Placement placement_;
  struct CollectiveState {
    int arrived = 0;
    double first = 0, last = 0;  // s: the first and the last member's arrival
  };
  std::vector<CollectiveState> state_;
  using Due = std::pair<sc_core::sc_time, int>;
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> due_;
  sc_core::sc_event_queue due_event_;
  std::vector<std::unique_ptr<KindStats>> kind_stats_;
  Scalar& latency_;
  Scalar& flops_;
  Scalar& candidates_;
  Scalar& peak_flops_;
  Scalar& peak_bandwidth_;
  Scalar& collective_time_;
  Scalar& link_bytes_;
};

}  // namespace strata
