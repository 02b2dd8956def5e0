#include "accelerators/package/package.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/input_error.h"
#include "sim/memory_budget.h"
#include "sim/units.h"

namespace strata {

namespace {

const KindSpec& placement_section() {
  static const KindSpec s = [] {
    KindSpec k;
    k.name = "placement";
    k.category = "section";
    k.description = "how the graph is split over the devices (tensor x pipeline = devices)";
    k.add(param::integer("tensor", "devices each stage's operators are split over (tensor and expert parallel)")
              .def("1")
              .range("1", "1024"));
    k.add(param::integer("pipeline", "pipeline stages, each a contiguous range of layers").def("1").range("1", "1024"));
    return k;
  }();
  return s;
}

PackageTopology topology_of(const std::string& name) {
  return name == "ring" ? PackageTopology::Ring : PackageTopology::FullyConnected;
}

}  // namespace

KindSpec Package::spec() {
  KindSpec s;
  s.name = "package";
  s.description = "several devices with their own memories, joined by links, running one operator graph together";
  s.add(param::integer("devices", "identical devices built from `device`").def("2").range("1", "1024"));
  s.add(param::choice("topology", {"ring", "fully_connected"},
                      "ring: each device linked to the next and the one before; fully_connected: a link per pair")
            .def("ring"));
  s.add(param::choice("collective", {"auto", "ring", "tree"},
                      "all-reduce algorithm: ring, tree, or auto (the faster on idle links, per all-reduce)")
            .def("auto"));
  s.slot(SlotSpec{"device", "every device (a package_device kind: npu, gpu)", "component", kPackageDeviceRole, true,
                  nullptr});
  s.slot(SlotSpec{"link", "every link, per direction (a chip_link role kind; default chip_link)", "component",
                  kChipLinkRole, false, nullptr, "chip_link"});
  s.slot(SlotSpec{"placement", "how the graph is split over the devices (keys of placement)", "section", "", false,
                  &placement_section()});
  return s;
}

Package::Package(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : Component(name, cfg, ctx),
      latency_(scalar("latency", "s", "from the start to the last device's last operator")),
      flops_(scalar("flops", "FLOP", "floating-point operations of the graph before placement (OpGraph conventions)")),
      candidates_(scalar("mapper.candidates", "tilings", "candidate mappings the devices' mappers evaluated")),
      peak_flops_(scalar("peak_flops", "FLOP/s", "the devices' peak_flops together")),
      peak_bandwidth_(scalar("peak_bandwidth", "B/s", "the devices' memory bandwidths together")),
      collective_time_(scalar("collectives.time", "s", "collectives' durations, last member's arrival to last byte")),
      link_bytes_(scalar("links.bytes", "B", "bytes every link carried, together")) {
  const int devices = static_cast<int>(params().integer("devices"));
  const ValidatedNode& placement = cfg.child("placement");
  plan_.tensor = static_cast<int>(placement.params.integer("tensor"));
  plan_.pipeline = static_cast<int>(placement.params.integer("pipeline"));
  if (plan_.devices() != devices)
    throw InputError(placement.params.where("tensor"), placement.path,
                     fmt::format("tensor x pipeline = {} x {} = {}, but the package has {} devices", plan_.tensor,
                                 plan_.pipeline, plan_.devices(), devices));
  for (int d = 0; d < devices; ++d) {
    const std::uint64_t before = allocated_bytes();
    devices_.push_back(build_child<PackageDevice>("device", fmt::format("device{}", d)));
    // The devices are alike: what the first one took, times the rest, must fit before they are
    // made (a GPU device is tens of MB of SMs, caches and stats; 256 of them exhaust a laptop).
    if (d == 0 && devices > 1) {
      const std::uint64_t now = allocated_bytes();
      const double each = static_cast<double>(now > before ? now - before : 0);
      require_memory(static_cast<double>(now) + each * (devices - 1),
                     fmt::format("a package of {} devices ({} each, as device0 took)", devices,
                                 format_quantity(each, UnitFamily::Size, 3)),
                     params().where("devices"), cfg.path + ".devices");
    }
    devices_.back()->join_package(*this, d);
  }
  const PackageTopology topology = topology_of(params().string("topology"));
  std::vector<LinkLane> lanes;
  for (const std::string& link : LinkNetwork::link_names(devices, topology)) {
    links_.push_back(build_part<ChipLink>("link", link));
    ChipLink* l = links_.back().get();
    lanes.push_back(
        LinkLane{l->bandwidth(), l->latency(), [l](std::uint64_t bytes, double s) { l->carried(bytes, s); }});
  }
  network_ = std::make_unique<LinkNetwork>(devices, topology, std::move(lanes));
  SC_HAS_PROCESS(Package);
  SC_METHOD(complete_due);
  sensitive << due_event_;
  dont_initialize();
  // The package's figures replace the devices' in summary.json (each device keeps its own in
  // stats.json).
  ctx.report("latency_s", stat_name("latency"));
  ctx.report("flops", stat_name("flops"));
  ctx.report("mapper_candidates", stat_name("mapper.candidates"));
  ctx.report("collective_time_s", stat_name("collectives.time"));
  ctx.report("link_bytes", stat_name("links.bytes"));
}

Package::~Package() = default;

void Package::load_graph(std::shared_ptr<const OpGraph> graph) {
  try {
    placement_ = place_graph(*graph, plan_);
  } catch (const PlacementError& e) {
    throw InputError(config().loc, config().path + ".placement", e.what());
  }
  double flops = 0;
  for (const Operator& op : graph->ops()) flops += op_flops(op);
  flops_.set(flops);
  state_.assign(placement_.collectives.size(), CollectiveState{});
  scalar("placement.split_ops", "operators", "operators split over a stage's devices")
      .set(static_cast<double>(placement_.split_ops));
  scalar("placement.whole_ops", "operators", "operators every device of a stage runs whole")
      .set(static_cast<double>(placement_.whole_ops));
  scalar("placement.pinned_ops", "operators", "operators one device runs (expert parallel)")
      .set(static_cast<double>(placement_.pinned_ops));
  double candidates = 0, peak_flops = 0, peak_bandwidth = 0;
  for (size_t d = 0; d < devices_.size(); ++d) {
    devices_[d]->load_graph(placement_.devices[d].graph);
    candidates += devices_[d]->mapping_candidates();
    peak_flops += devices_[d]->device_peak_flops();
    peak_bandwidth += devices_[d]->device_peak_bandwidth();
  }
  candidates_.set(candidates);
  peak_flops_.set(peak_flops);
  peak_bandwidth_.set(peak_bandwidth);
}

bool Package::graph_finished() const {
  return std::all_of(devices_.begin(), devices_.end(), [](const auto& d) { return d->graph_finished(); });
}

std::optional<double> Package::graph_progress() const {
  double sum = 0;
  for (const auto& d : devices_) {
    const auto p = d->graph_progress();
    if (!p) return std::nullopt;
    sum += *p;
  }
  return devices_.empty() ? std::nullopt : std::optional<double>(sum / static_cast<double>(devices_.size()));
}

Package::KindStats& Package::kind_stats(CollectiveKind kind) {
  const auto k = static_cast<size_t>(kind);
  if (kind_stats_.size() <= k) kind_stats_.resize(k + 1);
  if (!kind_stats_[k]) {
    const std::string base = std::string("collectives.") + collective_kind_name(kind) + ".";
    kind_stats_[k] = std::make_unique<KindStats>(
        KindStats{&counter(base + "count", "collectives", "collectives of this kind"),
                  &counter(base + "bytes", "B", "bytes each member contributed, over every member and collective"),
                  &scalar(base + "time", "s", "their durations, last member's arrival to last byte"),
                  &scalar(base + "wait", "s", "time between their first and last member's arrivals (imbalance)")});
  }
  return *kind_stats_[k];
}

double Package::time_collective(int c, double start, bool idle) {
  const PlacedCollective& pc = placement_.collectives[static_cast<size_t>(c)];
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
  const std::string& choice = params().string("collective");
  if (choice == "tree") algorithm = CollectiveAlgorithm::Tree;
  if (choice == "auto" && pc.kind == CollectiveKind::AllReduce) {
    // As tuned collectives libraries do: the algorithm that is faster for this size, on idle links.
    const double ring =
        network_->run(collective_steps(pc.kind, CollectiveAlgorithm::Ring, pc.members, pc.bytes), start, true, false);
    const double tree =
        network_->run(collective_steps(pc.kind, CollectiveAlgorithm::Tree, pc.members, pc.bytes), start, true, false);
    if (tree < ring) algorithm = CollectiveAlgorithm::Tree;
  }
  const double end = network_->run(collective_steps(pc.kind, algorithm, pc.members, pc.bytes), start, idle, true);
  const CollectiveState& st = state_[static_cast<size_t>(c)];
  KindStats& k = kind_stats(pc.kind);
  k.count->add();
  k.bytes->add(pc.bytes * pc.members.size());
  k.time->set(k.time->value() + (end - start));
  k.wait->set(k.wait->value() + (st.last - st.first));
  collective_time_.set(collective_time_.value() + (end - start));
  return end;
}

void Package::reached(int device, OpId op) {
  const int c = placement_.devices[static_cast<size_t>(device)].collective.at(op);
  CollectiveState& st = state_[static_cast<size_t>(c)];
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (st.arrived++ == 0) st.first = now.to_seconds();
  st.last = now.to_seconds();
  if (st.arrived < static_cast<int>(placement_.collectives[static_cast<size_t>(c)].members.size())) return;
  // The end in the kernel's resolution, never before now (sc_time cannot go negative).
  const sc_core::sc_time end =
      std::max(now, sc_core::sc_time(time_collective(c, now.to_seconds(), false), sc_core::SC_SEC));
  due_.push({end, c});
  due_event_.notify(end - now);
}

void Package::complete_due() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  while (!due_.empty() && due_.top().first <= now) {
    const int c = due_.top().second;
    due_.pop();
    for (const auto& [device, op] : placement_.collectives[static_cast<size_t>(c)].ops)
      devices_[static_cast<size_t>(device)]->complete_collective(op);
  }
}

std::optional<int> Package::ready_collective(const std::vector<std::optional<PackageDevice::Reached>>& waiting,
                                             int device) const {
  const int c = placement_.devices[static_cast<size_t>(device)].collective.at(waiting[static_cast<size_t>(device)]->op);
  for (const auto& [member, op] : placement_.collectives[static_cast<size_t>(c)].ops) {
    const auto& w = waiting[static_cast<size_t>(member)];
    if (!w || w->op != op) return std::nullopt;
  }
  return c;
}

double Package::evaluate_analytic() {
  // Every device runs to its next collective; a collective all of whose members wait at it is
  // timed from the last arrival, and its members go on. Devices reach collectives in the order
  // the placement emitted them, so some collective is complete until every device ends.
  std::vector<std::optional<PackageDevice::Reached>> waiting(devices_.size());
  for (size_t d = 0; d < devices_.size(); ++d) waiting[d] = devices_[d]->analytic_advance();
  for (;;) {
    bool any = false, progress = false;
    for (size_t d = 0; d < devices_.size(); ++d) {
      if (!waiting[d]) continue;
      any = true;
      const std::optional<int> c = ready_collective(waiting, static_cast<int>(d));
      if (!c) continue;
      const PlacedCollective& pc = placement_.collectives[static_cast<size_t>(*c)];
      CollectiveState& st = state_[static_cast<size_t>(*c)];
      st = CollectiveState{static_cast<int>(pc.ops.size()), waiting[d]->at, waiting[d]->at};
      for (const auto& member : pc.ops) {
        st.first = std::min(st.first, waiting[static_cast<size_t>(member.first)]->at);
        st.last = std::max(st.last, waiting[static_cast<size_t>(member.first)]->at);
      }
      const double end = time_collective(*c, st.last, true);
      for (const auto& [member, op] : pc.ops) {
        devices_[static_cast<size_t>(member)]->analytic_complete(op, end);
        waiting[static_cast<size_t>(member)] = devices_[static_cast<size_t>(member)]->analytic_advance();
      }
      progress = true;
    }
    if (!any) break;
    if (!progress) throw std::logic_error("package: devices wait at different collectives (placement order)");
  }
  double end = 0;
  for (const auto& d : devices_) end = std::max(end, d->analytic_finish());
  return end;
}

void Package::finalize(const sc_core::sc_time&) {
  double last = 0;
  for (const auto& d : devices_) last = std::max(last, d->finished_at());
  latency_.set(last);
  double bytes = 0;
  for (const auto& l : links_) bytes += static_cast<double>(l->bytes());
  link_bytes_.set(bytes);
}

}  // namespace strata
