#include "accelerators/gnn/gnn_accelerator.h"

#include <cmath>
#include <deque>
#include <optional>

#include <fmt/format.h>

#include "models/dma/dma_engine.h"
#include "sim/input_error.h"
#include "sim/number_format.h"
#include "sim/rounding.h"
#include "sim/sim_context.h"
#include "sim/tlm_at.h"

namespace strata {
namespace {

const KindSpec& aggregation_section() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "gnn_aggregation";
    s.category = "section";
    s.description = "the aggregation engine: walks the graph's CSR and accumulates neighbour features";
    s.add(param::choice("style", {"row_wise", "outer_product", "sliding_window"},
                        "row_wise: destination rows in order, neighbours' rows through the feature buffer (GROW's "
                        "Gustavson rows); outer_product: destination tiles in the output buffer, each source's row "
                        "times its column of A (GCNAX, MEGA); sliding_window: HyGCN's SIMD cores over destination "
                        "intervals that fit the output buffer, a source window sliding and shrinking over the sources "
                        "with an edge into the interval (each row fetched once per interval, as outer_product)"));
    s.add(param::integer("lanes", "feature elements multiplied and accumulated a cycle, all cores together (HyGCN: 32 "
                                  "SIMD16 cores = 512)")
              .range("1", "1048576"));
    s.add(param::choice("format", {"fp64", "fp32", "fp16", "bf16", "int16", "int8"},
                        "the lanes' arithmetic format (their energy and area)")
              .def("fp32"));
    s.add(param::boolean("shared",
                         "the aggregation runs on the combination engine's MACs (GCNAX's one 1 x 16 array "
                         "does both products): no area of its own, its operations priced as those MACs")
              .def("false"));
    s.add(param::choice("feature_cache", {"lru", "high_degree"},
                        "row_wise: what the feature buffer keeps: lru, the rows read last; high_degree (GROW), per "
                        "cluster the highest-degree nodes, loaded when the cluster starts, every other neighbour read "
                        "from DRAM")
              .def("lru"));
    s.add(param::integer("cluster_rows",
                         "high_degree: destination rows per cluster, the rows taken in breadth-first order (a stand-in "
                         "for GROW's METIS partitions); 0: the whole graph one cluster")
              .def("0")
              .range("0", "2147483647"));
    s.add(
        param::boolean("condense_edges",
                       "outer_product: MEGA's Condense-Edge, each tile's edges stored contiguously by an offline pass "
                       "over the graph and its source rows read as one ascending stream sharing bursts")
            .def("false"));
    return s;
  }();
  return spec;
}

const KindSpec& combination_section() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "gnn_combination";
    s.category = "section";
    s.description = "the combination engine: X times the layer's weights";
    s.add(param::choice("style", {"mac_array", "systolic", "bit_serial"},
                        "mac_array: `macs` MACs fed by an outer product that skips X's zeros (GCNAX); systolic: "
                        "`modules` weight-stationary arrays of rows x cols, dense (HyGCN); bit_serial: `macs` "
                        "engines taking bits_per_cycle bits of an operand a cycle (MEGA)"));
    s.add(param::integer("macs", "mac_array, bit_serial: multiply-accumulators").def("16").range("1", "1048576"));
    s.add(param::integer("modules", "systolic: arrays").def("1").range("1", "1024"));
    s.add(param::integer("rows", "systolic: rows of one array").def("4").range("1", "4096"));
    s.add(param::integer("cols", "systolic: columns of one array").def("128").range("1", "4096"));
    s.add(param::integer("bits_per_cycle", "bit_serial: operand bits an engine takes a cycle").def("1").range("1", "64"));
    s.add(param::choice("format", {"fp64", "fp32", "fp16", "bf16", "int16", "int8", "int4"},
                        "the MACs' arithmetic format (their energy and area)")
              .def("fp32"));
    return s;
  }();
  return spec;
}

const KindSpec& buffer_section() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "gnn_buffers";
    s.category = "section";
    s.description = "on-chip buffers, in bytes; each is an SRAM of the tech table for energy and area";
    s.add(param::quantity("feature", UnitFamily::Size,
                          "rows of B (the features being aggregated) kept on chip, an LRU cache of rows (HyGCN's input "
                          "buffer, GROW's high-degree-node cache, GCNAX's SMB)"));
    s.add(param::quantity("output", UnitFamily::Size,
                          "the aggregation's partial output rows (outer product: one destination tile; GCNAX's ODMB)"));
    s.add(param::quantity("input", UnitFamily::Size, "the combination's tile of X and its outputs (double-buffered)"));
    s.add(param::quantity("weight", UnitFamily::Size, "the layer's weights; when they do not fit they stream per tile"));
    s.add(param::integer("width", "bits a buffer reads or writes at once").def("512").range("8", "65536"));
    s.add(param::integer("banks", "banks of each buffer").def("16").range("1", "1024"));
    return s;
  }();
  return spec;
}

}  // namespace

KindSpec GnnAccelerator::spec() {
  KindSpec s;
  s.name = "gnn_accelerator";
  s.description = "GNN accelerator template: aggregation and combination engines, buffers, DMA and DRAM";
  s.with_clock();
  s.add(param::integer("prefetch", "steps whose reads are in flight while the engine computes the current one")
            .def("8")
            .range("1", "4096"));
  s.add(param::boolean("pipeline",
                       "HyGCN's inter-engine pipeline: an aggregation's finished tiles (outer_product, sliding_window) "
                       "go to the combination that consumes them on chip, which computes them while the aggregation "
                       "goes on; neither writes nor reads them in DRAM")
            .def("false"));
  s.add(param::boolean("fusion",
                       "GCNAX's fusion flag: a combination's output rows go on chip to the aggregation that reads "
                       "them as B (outer_product, sliding_window), which takes each source as soon as its row is "
                       "computed; only when the aggregation's output is one tile (it fits the output buffer), since "
                       "every later tile would need B again")
            .def("false"));
  s.add(param::quantity("access_block", UnitFamily::Size,
                        "DRAM accesses are counted as the blocks of this size, aligned, that the engines' reads and "
                        "writes touch (64 B, as these papers count them); the DMA's requests are its own `burst`")
            .def("64 B"));
  s.add(param::choice("feature_format", {"plain", "adaptive_package", "beicsr"},
                      "node features in DRAM: plain, values at their format's bits back to back; adaptive_package "
                      "(MEGA), 64/128/192-bit packages with 5-bit headers plus a bitmap per sparse row; beicsr (SGCN), "
                      "a sparse row's bitmap and nonzeros in place of the dense row, which the aggregation reads and "
                      "accumulates by its nonzeros (models/gnn/feature_formats.h)")
            .def("plain"));
  s.slot(SlotSpec{"aggregation", "the aggregation engine", "section", "", true, &aggregation_section()});
  s.slot(SlotSpec{"combination", "the combination engine", "section", "", true, &combination_section()});
  s.slot(SlotSpec{"buffers", "on-chip buffers", "section", "", true, &buffer_section()});
  s.slot(SlotSpec{"dma", "the DMA engine in front of the memory (a dma role kind; default dma)", "component", kDmaRole,
                  false, nullptr, "dma"});
  s.slot(SlotSpec{"memory", "the memory (a memory_target kind: dram for cycle-level HBM)", "component",
                  kMemoryTargetRole, true, nullptr});
  // The engines, buffers and DMA are one clock domain (sim/device_power.h); the memory keeps its own.
  add_power_management_params(s);
  return s;
}

GnnAccelerator::GnnAccelerator(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : Component(name, cfg, ctx) {
  const Params& a = cfg.child("aggregation").params;
  const std::string style = a.string("style");
  aggregation_.style = style == "row_wise"         ? AggregationStyle::RowWise
                       : style == "sliding_window" ? AggregationStyle::SlidingWindow
                                                   : AggregationStyle::OuterProduct;
  aggregation_.lanes = a.integer("lanes");
  aggregation_.cache = a.string("feature_cache") == "high_degree" ? FeatureCache::HighDegree : FeatureCache::Lru;
  aggregation_.cluster_rows = a.integer("cluster_rows");
  aggregation_.condense_edges = a.flag("condense_edges");
  aggregation_.format = *find_feature_format(params().string("feature_format"));
  const Params& c = cfg.child("combination").params;
  combination_.style = *find_combination_style(c.string("style"));
  combination_.macs = c.integer("macs");
  combination_.modules = c.integer("modules");
  combination_.rows = c.integer("rows");
  combination_.cols = c.integer("cols");
  combination_.bits_per_cycle = static_cast<int>(c.integer("bits_per_cycle"));
  const Params& b = cfg.child("buffers").params;
  aggregation_.feature_buffer_bytes = static_cast<std::uint64_t>(b.quantity("feature"));
  aggregation_.output_buffer_bytes = static_cast<std::uint64_t>(b.quantity("output"));
  input_buffer_ = static_cast<std::uint64_t>(b.quantity("input"));
  weight_buffer_ = static_cast<std::uint64_t>(b.quantity("weight"));
  prefetch_ = static_cast<int>(params().integer("prefetch"));
  pipeline_ = params().flag("pipeline");
  fusion_ = params().flag("fusion");

  dma_ = build_part<DmaEngine>("dma");
  aggregation_.access_bytes = static_cast<std::uint64_t>(params().quantity("access_block"));
  memory_ = build_child<MemoryTarget>("memory");
  bind_at(ctx, dma_->initiator_socket(), memory_->target_socket(), dma_->basename());

  // Energy and area from the tech table: a MAC of the combination's format per product, one of
  // the aggregation's per lane operation, SRAM accesses of the buffers' width.
  const TechTable& t = tech();
  const std::string cf = c.string("format"), af = a.string("format");
  element_bytes_ = find_number_format(cf)->bits_per_element() / 8;
  const bool shared = a.flag("shared");
  const UnitCost mac = t.mac(cf), lane = shared ? mac : t.mac(af);
  mac_ = &energy_event("mac", mac.energy_j, fmt::format("combination multiply-accumulates ({}: {})", cf, t.mac_recipe(cf)));
  lane_op_ = &energy_event("lane_op", lane.energy_j, fmt::format("aggregation lane operations ({})", shared ? cf : af));
  const int width = static_cast<int>(b.integer("width")), banks = static_cast<int>(b.integer("banks"));
  double read_j = 0, write_j = 0, capacity = 0;
  for (const char* key : {"feature", "output", "input", "weight"}) {
    const double bytes = b.quantity(key);
    if (bytes <= 0) continue;
    const SramCost sram = t.sram(bytes, width, banks, b.where(key), cfg.path + ".buffers." + key);
    add_area(std::string("buffer_") + key, sram.area_mm2, sram.leakage_w);
    read_j = std::max(read_j, sram.read_j);  // the largest buffer's access prices every access
    write_j = std::max(write_j, sram.write_j);
    capacity += bytes;
  }
  buffer_read_ = &energy_event("buffer_read", read_j / (width / 8.0), "bytes read from the on-chip buffers");
  buffer_write_ = &energy_event("buffer_write", write_j / (width / 8.0), "bytes written into the on-chip buffers");
  add_area("combination", static_cast<double>(combination_.peak_macs()) * mac.area_mm2,
           t.with_leakage(mac).leakage_w * static_cast<double>(combination_.peak_macs()));
  if (!shared)
    add_area("aggregation", static_cast<double>(aggregation_.lanes) * lane.area_mm2,
             t.with_leakage(lane).leakage_w * static_cast<double>(aggregation_.lanes));

  scalar("peak_macs", "MAC/cycle", "the combination engine's multiply-accumulators")
      .set(static_cast<double>(combination_.peak_macs()));
  scalar("buffer_bytes", "B", "on-chip buffers together").set(capacity);
  ctx.report("latency_s", stat_name("latency"));
  ctx.report("flops", stat_name("flops"));
  ctx.report("dram_bytes", stat_name("dram_bytes"));
  ctx.report("dram_accesses", stat_name("dram_accesses"));
  power_ = std::make_unique<DevicePower>(
      *this, std::vector<Component*>{dma_.get()},
      memory_->peak_bandwidth() * analytic_memory(*memory_, memory_.component().config()).streaming_energy_per_byte());
}

double GnnAccelerator::peak_dynamic_j_per_cycle() const {
  // A product a cycle on every MAC, each reading an operand from the buffers; every lane busy.
  return static_cast<double>(combination_.peak_macs()) *
             (mac_->joules_per_event() + element_bytes_ * buffer_read_->joules_per_event()) +
         static_cast<double>(aggregation_.lanes) * lane_op_->joules_per_event();
}

GnnAccelerator::~GnnAccelerator() = default;

void GnnAccelerator::load_graph(std::shared_ptr<const OpGraph> graph) {
  graph_ = std::move(graph);
  for (const OpId id : graph_->topological_order()) {
    const Operator& op = graph_->op(id);
    Task t;
    t.op = id;
    t.flops = op_flops(op);
    const bool structured = op.kind == OpKind::SpMM && graph_->tensor(op.inputs[0]).structure != nullptr;
    if (structured) t.engine = Engine::Aggregation;
    else if (op.kind == OpKind::SpMM || op.kind == OpKind::Gemm) t.engine = Engine::Combination;
    else if (op.kind == OpKind::Relu || op.kind == OpKind::Add || op.kind == OpKind::Mul)
      t.vector_elements = static_cast<std::uint64_t>(output_elements(op, 0));
    else if (op.kind == OpKind::Scatter && graph_->tensor(op.inputs.at(0)).format == "index")
      // The input features are stored in DRAM in the layout the design reads (dense rows to
      // aggregate first, BEICSR), prepared with the graph: the workload's densifying copy of
      // its CSR features costs nothing here.
      t.engine = Engine::Vector;
    else if (op.kind == OpKind::Scatter || op.kind == OpKind::Gather || op.kind == OpKind::Copy)
      t.engine = Engine::Move;
    else
      throw InputError(SourceLoc{}, "workload",
                       fmt::format("operator '{}' ({}) has no engine on the GNN accelerator (it runs GNN layers: "
                                   "SpMM, Gemm and element-wise operators)",
                                   op.name, op_kind_name(op.kind)));
    tasks_.push_back(t);
  }
  // Pairs that hand an output over on chip: with `pipeline`, an aggregation and the combination
  // that reads its output as X; with `fusion`, a combination and the aggregation that reads its
  // output as B, when the aggregation's output is one tile. The aggregation walks tiles (outer
  // product or sliding window); the output has no other reader.
  const auto only_reader = [&](std::size_t i, std::size_t input) {
    const TensorId out = graph_->op(tasks_[i].op).outputs.at(0);
    std::size_t readers = 0;
    for (const OpId id : graph_->topological_order())
      for (const TensorId in : graph_->op(id).inputs) readers += in == out ? 1 : 0;
    return readers == 1 && graph_->op(tasks_[i + 1].op).inputs.at(input) == out;
  };
  const auto one_tile = [&](const Task& t) {
    const Operator& op = graph_->op(t.op);
    const double row =
        std::ceil(static_cast<double>(op.dim("n")) * graph_->tensor(op.outputs.at(0)).bytes_per_element());
    return static_cast<double>(op.dim("rows")) * row <= static_cast<double>(aggregation_.output_buffer_bytes);
  };
  if (aggregation_.style != AggregationStyle::RowWise)
    for (std::size_t i = 0; i + 1 < tasks_.size(); ++i) {
      const Engine from = tasks_[i].engine, to = tasks_[i + 1].engine;
      if (pipeline_ && from == Engine::Aggregation && to == Engine::Combination)
        tasks_[i].feeds_next = only_reader(i, 0);
      else if (fusion_ && from == Engine::Combination && to == Engine::Aggregation)
        tasks_[i].feeds_next = only_reader(i, 1) && one_tile(tasks_[i + 1]);
      if (tasks_[i].feeds_next) ++i;  // a task is in one pair at most
    }
  if (context().analytic()) return;
  sc_core::sc_spawn([this] { run_graph(); }, "graph_runner");
}

std::optional<double> GnnAccelerator::graph_progress() const {
  if (tasks_.empty()) return std::nullopt;
  return static_cast<double>(done_) / static_cast<double>(tasks_.size());
}

std::unique_ptr<GnnSchedule> GnnAccelerator::schedule(const Task& t, OnChip on_chip) const {
  const Operator& op = graph_->op(t.op);
  if (t.engine == Engine::Aggregation)
    return std::make_unique<AggregationSchedule>(*graph_, op, aggregation_, GnnAddressMap{}, on_chip);
  if (t.engine == Engine::Move) return std::make_unique<MoveSchedule>(*graph_, op, input_buffer_ / 2);
  return std::make_unique<CombinationSchedule>(*graph_, op, combination_, aggregation_.format, input_buffer_,
                                               weight_buffer_, GnnAddressMap{}, on_chip);
}

std::pair<std::unique_ptr<GnnSchedule>, std::unique_ptr<GnnSchedule>> GnnAccelerator::pair_schedules(
    std::size_t i) const {
  OnChip out, in;
  out.output = true;
  in.input = true;
  if (tasks_[i].engine == Engine::Aggregation) {
    auto a =
        std::make_unique<AggregationSchedule>(*graph_, graph_->op(tasks_[i].op), aggregation_, GnnAddressMap{}, out);
    in.input_rows = a->tile_rows();
    return {std::move(a), schedule(tasks_[i + 1], in)};
  }
  return {schedule(tasks_[i], out), schedule(tasks_[i + 1], in)};
}

void GnnAccelerator::run_steps(GnnSchedule& schedule, const std::function<void(const GnnStep&)>& gate,
                               const std::function<void(const GnnStep&)>& after) {
  struct Pending {
    GnnStep step;
    std::size_t left = 0;
    sc_core::sc_event ready;
  };
  std::deque<std::shared_ptr<Pending>> window;
  bool more = true;
  const auto refill = [&] {
    while (more && static_cast<int>(window.size()) < prefetch_) {
      auto p = std::make_shared<Pending>();
      if (!schedule.next(p->step)) {
        more = false;
        return;
      }
      p->left = p->step.reads.size();
      for (const DmaDescriptor& d : p->step.reads)
        dma_->submit(d, [p] {
          if (--p->left == 0) p->ready.notify(sc_core::SC_ZERO_TIME);
        });
      window.push_back(p);
    }
  };
  refill();
  while (!window.empty()) {
    const std::shared_ptr<Pending> p = window.front();
    if (p->left > 0) sc_core::wait(p->ready);
    if (gate) gate(p->step);
    if (p->step.compute_cycles > 0) sc_core::wait(clock().period() * static_cast<double>(p->step.compute_cycles));
    if (after) after(p->step);
    for (const DmaDescriptor& d : p->step.writes) dma_->submit(d, [] {});
    window.pop_front();
    refill();
  }
}

void GnnAccelerator::finish_task(std::size_t i, double start, double end, const GnnTotals& t) {
  const Task& task = tasks_[i];
  const Operator& op = graph_->op(task.op);
  const std::string base = "ops." + op.name + ".";
  const char* engine = task.engine == Engine::Aggregation   ? "aggregation"
                       : task.engine == Engine::Combination ? "combination"
                       : task.engine == Engine::Move        ? "move"
                                                            : "vector";
  scalar(base + "latency", "s", "the operator's time").set(end - start);
  scalar(base + "engine", "", fmt::format("0 aggregation, 1 combination, 2 vector, 3 move: {}", engine))
      .set(static_cast<double>(task.engine));
  scalar(base + "compute_cycles", "cycles", "its engine's busy cycles").set(static_cast<double>(t.compute_cycles));
  scalar(base + "dram_bytes", "B", "bytes it read and wrote in DRAM").set(static_cast<double>(t.read_bytes + t.write_bytes));
  scalar(base + "dram_accesses", "accesses", "the access_block-sized DRAM blocks it read and wrote")
      .set(static_cast<double>(t.accesses));
  // Energy: a MAC per product on the engine that ran it; buffers written with what came from
  // DRAM and read once per MAC operand.
  const auto products = static_cast<std::uint64_t>(task.flops / 2);
  if (task.engine == Engine::Combination) mac_->add(products);
  else if (task.engine == Engine::Aggregation) lane_op_->add(products);
  else if (task.engine == Engine::Vector) lane_op_->add(task.vector_elements);
  buffer_write_->add(t.read_bytes);
  buffer_read_->add(static_cast<std::uint64_t>(static_cast<double>(products) * element_bytes_));
  flops_ += task.flops;
  dram_bytes_ += t.read_bytes + t.write_bytes;
  dram_accesses_ += t.accesses;
  latency_s_ = end;
  ++done_;
}

double GnnAccelerator::run_pipeline(GnnSchedule& producer, GnnSchedule& consumer) {
  std::uint64_t produced = 0;
  bool consumed = false;
  sc_core::sc_event advanced, consumer_done;
  sc_core::sc_spawn([&] {
    run_steps(consumer, [&](const GnnStep& s) {
      while (produced < s.needs) sc_core::wait(advanced);
    });
    consumed = true;
    consumer_done.notify(sc_core::SC_ZERO_TIME);
  });
  run_steps(producer, {}, [&](const GnnStep& s) {
    if (s.produces == 0) return;
    produced += s.produces;
    advanced.notify(sc_core::SC_ZERO_TIME);
  });
  const double end = sc_core::sc_time_stamp().to_seconds();
  if (!consumed) sc_core::wait(consumer_done);
  return end;
}

void GnnAccelerator::run_graph() {
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    const double start = sc_core::sc_time_stamp().to_seconds();
    if (tasks_[i].feeds_next) {
      auto [producer, consumer] = pair_schedules(i);
      const double produced = run_pipeline(*producer, *consumer);
      finish_task(i, start, produced, producer->totals(aggregation_.access_bytes));
      finish_task(i + 1, start, sc_core::sc_time_stamp().to_seconds(), consumer->totals(aggregation_.access_bytes));
      ++i;
      continue;
    }
    GnnTotals totals;
    if (tasks_[i].engine == Engine::Vector) {
      totals.compute_cycles = ceil_div(tasks_[i].vector_elements, static_cast<std::uint64_t>(aggregation_.lanes));
      sc_core::wait(clock().period() * static_cast<double>(totals.compute_cycles));
    } else {
      std::unique_ptr<GnnSchedule> s = schedule(tasks_[i]);
      run_steps(*s);
      totals = s->totals(aggregation_.access_bytes);
    }
    finish_task(i, start, sc_core::sc_time_stamp().to_seconds(), totals);
  }
}

double GnnAccelerator::evaluate_analytic() {
  double now = 0;
  auto* analytic = dynamic_cast<AnalyticMemory*>(memory_.get());
  // The memory's sustained bandwidth, or what the DMA's requests in flight carry per latency
  // (Little's law), whichever is less.
  double bandwidth = analytic ? analytic->sustained_bandwidth() : memory_->peak_bandwidth();
  if (analytic)
    bandwidth = std::min(bandwidth, static_cast<double>(dma_->max_outstanding() * dma_->burst()) /
                                        std::max(1e-12, analytic->unloaded_latency(false)));
  std::optional<GnnTotals> handed;  // the second task of a pair, walked with the first
  const double latency = analytic ? analytic->unloaded_latency(false) : 0;
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    const Task& task = tasks_[i];
    GnnTotals totals;
    if (task.engine == Engine::Vector) {
      totals.compute_cycles = ceil_div(task.vector_elements, static_cast<std::uint64_t>(aggregation_.lanes));
    } else if (task.feeds_next) {
      // A pipelined or fused pair: taken one after the other here, an upper bound on its time.
      auto [producer, consumer] = pair_schedules(i);
      totals = producer->totals(aggregation_.access_bytes);
      handed = consumer->totals(aggregation_.access_bytes);
    } else if (handed) {
      totals = *handed;
      handed.reset();
    } else {
      totals = schedule(task)->totals(aggregation_.access_bytes);
    }
    const double compute = static_cast<double>(totals.compute_cycles) * clock().period().to_seconds();
    // At most `prefetch` steps' reads are in flight: a step's reads take a memory latency.
    const double memory = std::max(static_cast<double>(totals.read_bytes + totals.write_bytes) / bandwidth,
                                   static_cast<double>(totals.steps) * latency / prefetch_);
    const double start = now;
    now += std::max(compute, memory);
    if (analytic && totals.read_bytes + totals.write_bytes > 0) {
      for (const bool write : {false, true}) {
        AnalyticTransfer x;
        x.row_bytes = write ? totals.write_bytes : totals.read_bytes;
        x.write = write;
        x.requests = ceil_div(x.row_bytes, dma_->burst());
        x.request_align = dma_->burst();
        x.random = !write && task.engine == Engine::Aggregation;
        x.start_s = start;
        x.end_s = now;
        if (x.row_bytes > 0) analytic->account_analytic(x);
      }
    }
    finish_task(i, start, now, totals);
  }
  return now;
}

void GnnAccelerator::finalize(const sc_core::sc_time& end) {
  power_->finalize(reported_s(end));
  scalar("latency", "s", "the graph's last operator's end").set(latency_s_);
  scalar("flops", "FLOP", "the graph's floating-point operations").set(flops_);
  scalar("dram_bytes", "B",
         "bytes the engines read and wrote in DRAM (the DRAM moves whole bursts: its own bytes_read and bytes_written)")
      .set(static_cast<double>(dram_bytes_));
  scalar("dram_accesses", "accesses",
         "DRAM accesses: the access_block-aligned blocks (64 B, as these papers count them) the engines read and wrote")
      .set(static_cast<double>(dram_accesses_));
}

}  // namespace strata
