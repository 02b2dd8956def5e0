#include "accelerators/npu/npu_analytic.h"

#include <algorithm>
#include <deque>

namespace strata {
namespace {

// How one operator's transfers reach memory from one core.
struct Path {
  double memory = 1;                           // B/s: the core's share of the memory's sustained bandwidth
  double bandwidth = 1, store_bandwidth = 1;   // B/s: the NoC path's, for loads (memory to core) and stores
  double read_latency = 0, write_latency = 0;  // s, unloaded, with the NoC round trip
  double dma_cycle = 0;                        // s: the DMA issues one request per cycle
  double outstanding = 1;                      // requests the DMA keeps in flight
  int streams = 1;                             // cores streaming at once (DRAM row locality)
};

// Descriptors queued together: one tile's loads (of one kind), or its stores.
struct Batch {
  std::vector<const DmaDescriptor*> items;
  std::uint64_t bytes = 0, requests = 0;
  double memory_seconds = 0;  // its bytes at the core's share of the channels they fall in
  bool write = false;
};

struct PendingStore {
  double issue;
  std::size_t op;
  Batch batch;
  const Path* path;
};

// What the two threads of one core and its DMA queue have done so far.
struct CoreState {
  std::vector<double> computed;           // compute end of tile j at [j % buffers]
  std::vector<std::uint64_t> footprints;  // scratchpad bytes of tile j at [j % buffers]
  std::uint64_t next = 0;                 // tiles started on this core
  double loader = 0;                      // the loader thread's time
  double compute = 0;                     // end of the last tile's compute
  double dma = 0;                         // completion of the last batch in the DMA queue
  double first_loaded = 0;                // an operator's first tile: its prefetched loads' completion
  std::deque<PendingStore> stores;        // issued, not yet queued behind earlier transfers
  std::uint64_t compute_cycles = 0, stall_cycles = 0, peak_footprint = 0;
  std::uint64_t reads = 0, writes = 0, read_bytes = 0, write_bytes = 0;  // since the last NoC count
};

class Evaluator {
 public:
  Evaluator(const NpuProgram& program, const NpuParts& parts)
      : program_(program), parts_(parts), buffers_(static_cast<std::size_t>(std::max(1, parts.buffers))) {
    for (std::size_t c = 0; c < parts.cores.size(); ++c) {
      CoreState s;
      s.computed.assign(buffers_, 0);
      s.footprints.assign(buffers_, 0);
      states_.push_back(std::move(s));
    }
    end_.assign(program_.ops.size(), 0);
    paths_.resize(program_.ops.size());
  }

  // Evaluates operators in program order up to and including the next external one (a
  // collective the package times); returns it with the time the device reached it, or nothing
  // at the end of the program.
  std::optional<NpuProgramEvaluator::Reached> advance() {
    while (next_ < program_.ops.size()) {
      const std::size_t k = next_++;
      evaluate(k);
      if (program_.ops[k].external) return NpuProgramEvaluator::Reached{k, end_[k]};
    }
    return std::nullopt;
  }
  void complete(std::size_t k, double end) { end_[k] = end; }

  std::vector<double> finish() {
    for (std::size_t c = 0; c < states_.size(); ++c) {
      drain_before(c, program_.ops.size());
      CoreState& s = states_[c];
      count_noc(c);
      parts_.cores[c]->account_analytic(s.next, s.compute_cycles, s.stall_cycles, s.peak_footprint);
    }
    return end_;
  }

 private:
  void evaluate(std::size_t k) {
    const LoweredOp& op = program_.ops[k];
    paths_[k] = op_paths(op);
    // The loader of every core goes ahead to the operator's first tile: once a buffer is free
    // it queues the loads of data no earlier operator writes, then waits for the inputs while
    // the stores of earlier operators drain.
    for (std::size_t c = 0; c < states_.size(); ++c) {
      CoreState& s = states_[c];
      const auto& tiles = op.cores[c];
      if (!tiles.empty()) {
        s.loader = std::max(s.loader, freed(s));
        drain_until(c, s.loader);
        s.first_loaded = load(c, gather_loads(c, tiles.front(), false, paths_[k][c]), s.loader, paths_[k][c]);
      }
      drain_before(c, k);
    }
    // Every earlier operator has ended now.
    double ready = 0;
    for (int d : op.deps) ready = std::max(ready, end_[static_cast<std::size_t>(d)]);
    for (std::size_t c = 0; c < states_.size(); ++c) run_core(c, k, ready);
  }

  // How each core reaches memory during `op`: the memory's sustained bandwidth shared by the
  // cores the operator runs on, or less where their NoC paths share a link.
  std::vector<Path> op_paths(const LoweredOp& op) const {
    std::vector<bool> active(op.cores.size());
    int n = 0;
    for (std::size_t c = 0; c < op.cores.size(); ++c) {
      active[c] = !op.cores[c].empty();
      n += active[c] ? 1 : 0;
    }
    n = std::max(1, n);
    const std::vector<double> back = parts_.noc->analytic_bandwidth(active, false);
    const std::vector<double> toward = parts_.noc->analytic_bandwidth(active, true);
    const double memory = parts_.memory->sustained_bandwidth() / n;
    std::vector<Path> paths(op.cores.size());
    for (std::size_t c = 0; c < paths.size(); ++c) {
      NpuCore& core = *parts_.cores[c];
      Path& p = paths[c];
      p.memory = memory;
      p.bandwidth = back[c];
      p.store_bandwidth = toward[c];
      const double round_trip = parts_.noc->round_trip(static_cast<int>(c));
      // A request issued into an idle queue waits behind what the operator's other cores keep
      // in flight (their DMA windows, drained at the bandwidth they share).
      const double window = static_cast<double>(core.dma().max_outstanding() * core.dma().burst());
      const double backlog = window * (n - 1) / std::max(1.0, std::min(memory, back[c]) * n);
      p.read_latency = parts_.memory->unloaded_latency(false) + round_trip + backlog;
      p.write_latency = parts_.memory->unloaded_latency(true) + round_trip + backlog;
      p.dma_cycle = core.dma().clock().period().to_seconds();
      p.outstanding = static_cast<double>(core.dma().max_outstanding());
      p.streams = n;
    }
    return paths;
  }

  // When the buffer of the core's next tile is free: tile j - buffers has computed.
  double freed(const CoreState& s) const { return s.next < buffers_ ? 0 : s.computed[s.next % buffers_]; }

  void finish(std::size_t op, double t) { end_[op] = std::max(end_[op], t); }

  Batch gather_loads(std::size_t core, const Tile& tile, bool after_deps, const Path& p) const {
    Batch b;
    for (const TileLoad& ld : tile.loads)
      if (ld.after_deps == after_deps) add(core, ld.d, p, b);
    return b;
  }
  // Adds a descriptor to a batch. The memory gives the core its share of the sustained
  // bandwidth, of the channels the descriptor's addresses fall in (the operator's other cores
  // run the same pattern, in the same channels).
  void add(std::size_t core, const DmaDescriptor& d, const Path& p, Batch& b) const {
    b.items.push_back(&d);
    b.bytes += d.bytes();
    b.requests += parts_.cores[core]->dma().requests_of(d);
    b.write = d.write;
    if (d.bytes() == 0) return;
    b.memory_seconds += static_cast<double>(d.bytes()) / (p.memory * parts_.memory->bandwidth_share(transfer(d)));
  }
  static AnalyticTransfer transfer(const DmaDescriptor& d) {
    AnalyticTransfer t;
    t.address = d.address;
    t.rows = d.rows;
    t.row_bytes = d.row_bytes;
    t.stride = d.stride;
    t.write = d.write;
    return t;
  }

  // Queues a batch issued at `issue` on the core's DMA: it completes one latency after its
  // issue if the queue is idle, else right behind the batch before it, after occupying the
  // way to memory for its bytes at the bandwidth, its requests at one per DMA cycle, or its
  // requests at max_outstanding per latency, whichever is longest. Counts it on every block;
  // returns its completion (its issue time when it is empty).
  double load(std::size_t core, const Batch& b, double issue, const Path& p) {
    if (b.items.empty()) return issue;
    CoreState& s = states_[core];
    const double latency = b.write ? p.write_latency : p.read_latency;
    const auto requests = static_cast<double>(b.requests);
    const double seconds =
        std::max({b.memory_seconds, static_cast<double>(b.bytes) / (b.write ? p.store_bandwidth : p.bandwidth),
                  requests * p.dma_cycle, requests * latency / p.outstanding});
    const double start = std::max(issue + latency, s.dma);
    s.dma = start + seconds;
    for (const DmaDescriptor* d : b.items) count(core, *d, p, start, s.dma);
    return s.dma;
  }

  // Counts one transfer on the scratchpad, the DMA and the memory (the NoC per operator).
  void count(std::size_t core, const DmaDescriptor& d, const Path& p, double start, double end) {
    NpuCore& c = *parts_.cores[core];
    CoreState& s = states_[core];
    if (d.write) c.scratchpad().read(d.bytes());
    else c.scratchpad().write(d.bytes());
    c.dma().account_analytic(d, start, end);
    if (d.bytes() == 0) return;
    AnalyticTransfer t = transfer(d);
    t.requests = c.dma().requests_of(d);
    t.request_align = c.dma().burst();
    t.streams = p.streams;
    t.start_s = start;
    t.end_s = end;
    parts_.memory->account_analytic(t);
    (d.write ? s.writes : s.reads) += t.requests;
    (d.write ? s.write_bytes : s.read_bytes) += d.bytes();
  }
  void count_noc(std::size_t core) {
    CoreState& s = states_[core];
    parts_.noc->account_analytic(static_cast<int>(core), s.reads, s.writes, s.read_bytes, s.write_bytes);
    s.reads = s.writes = s.read_bytes = s.write_bytes = 0;
  }

  void queue_store(std::size_t core) {
    CoreState& s = states_[core];
    const PendingStore st = std::move(s.stores.front());
    s.stores.pop_front();
    finish(st.op, load(core, st.batch, st.issue, *st.path));
  }
  // Stores issued by `t` go into the DMA queue before transfers issued at `t`.
  void drain_until(std::size_t core, double t) {
    while (!states_[core].stores.empty() && states_[core].stores.front().issue <= t) queue_store(core);
  }
  void drain_before(std::size_t core, std::size_t op) {
    while (!states_[core].stores.empty() && states_[core].stores.front().op < op) queue_store(core);
  }

  // The operator's tiles on one core, after its first tile's prefetch.
  void run_core(std::size_t c, std::size_t k, double ready) {
    CoreState& s = states_[c];
    NpuCore& core = *parts_.cores[c];
    const auto& tiles = program_.ops[k].cores[c];
    if (tiles.empty()) {
      // The computer passes it once its earlier tiles have computed and the inputs are there.
      finish(k, std::max(ready, s.compute));
      return;
    }
    const Path& p = paths_[k][c];
    const double period = core.clock().period().to_seconds();
    for (std::size_t j = 0; j < tiles.size(); ++j) {
      const Tile& tile = tiles[j];
      double loaded = 0;
      if (j == 0) {
        s.loader = std::max(s.loader, ready);
        drain_until(c, s.loader);
        loaded = std::max(s.first_loaded, load(c, gather_loads(c, tile, true, p), s.loader, p));
      } else {
        s.loader = std::max(s.loader, freed(s));
        drain_until(c, s.loader);
        Batch b = gather_loads(c, tile, false, p);
        for (const TileLoad& ld : tile.loads)
          if (ld.after_deps) add(c, ld.d, p, b);
        loaded = load(c, b, s.loader, p);
      }
      const std::uint64_t cycles = core.compute_tile(tile);
      const double start = std::max(s.compute, loaded);
      if (start > s.compute) s.stall_cycles += core.clock().cycles_in(start - s.compute);
      const double end = start + static_cast<double>(cycles) * period;
      const std::size_t slot = s.next % buffers_;
      s.computed[slot] = end;
      s.footprints[slot] = tile.footprint;
      std::uint64_t in_flight = 0;
      for (std::uint64_t f : s.footprints) in_flight += f;
      s.peak_footprint = std::max(s.peak_footprint, in_flight);
      ++s.next;
      s.compute = end;
      s.compute_cycles += cycles;
      finish(k, end);
      if (tile.stores.empty()) continue;
      PendingStore st{end, k, Batch{}, &p};
      for (const DmaDescriptor& d : tile.stores) add(c, d, p, st.batch);
      s.stores.push_back(std::move(st));
    }
    count_noc(c);
  }

  const NpuProgram& program_;
  const NpuParts parts_;  // a copy: a stepping evaluator outlives its caller's
  std::size_t buffers_;
  std::vector<CoreState> states_;
  std::vector<std::vector<Path>> paths_;  // per operator, per core
  std::vector<double> end_;
  std::size_t next_ = 0;  // the next operator to evaluate
};

}  // namespace

struct NpuProgramEvaluator::Impl : Evaluator {
  using Evaluator::Evaluator;
};

NpuProgramEvaluator::NpuProgramEvaluator(const NpuProgram& program, const NpuParts& parts)
    : impl_(std::make_unique<Impl>(program, parts)) {}
NpuProgramEvaluator::~NpuProgramEvaluator() = default;
std::optional<NpuProgramEvaluator::Reached> NpuProgramEvaluator::advance() { return impl_->advance(); }
void NpuProgramEvaluator::complete(std::size_t op, double end) { impl_->complete(op, end); }
std::vector<double> NpuProgramEvaluator::finish() { return impl_->finish(); }

}  // namespace strata
