#include "memory/dram/dram.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "memory/dram/dram_interface_cost.h"
#include "sim/input_error.h"
#include "sim/text.h"

namespace strata {

struct Dram::Channel {
  std::unique_ptr<ChannelController> ctrl;
  std::unique_ptr<ProtocolChecker> checker;
  ChannelStats stats;
  Counter* bytes = nullptr;
  sc_core::sc_event wake;
  std::uint64_t wake_at = ChannelController::kIdle;  // the pending wake-up, if any
  std::uint64_t analytic_active_cycles = 0;          // rank-cycles with a bank open (analytic fidelity)
};

namespace {

const KindSpec& controller_spec() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "controller";
    s.category = "section";
    s.description = "the memory controller of each (pseudo-)channel";
    s.add(param::integer("read_queue", "read requests (bursts) a channel holds").def("32").range("1", "4096"));
    s.add(param::integer("write_queue", "write requests (bursts) a channel holds").def("32").range("1", "4096"));
    s.add(param::choice("scheduler", {"frfcfs", "fcfs"},
                        "frfcfs: ready row hits first, then the oldest ready command; fcfs: strictly in arrival order")
              .def("frfcfs"));
    s.add(param::choice("page_policy", {"open", "closed", "adaptive"},
                        "open: rows stay open until a conflict; closed: precharge after every access; adaptive: "
                        "precharge once no queued request hits the row")
              .def("open"));
    s.add(param::choice("refresh", {"all_bank", "per_bank", "none"},
                        "all_bank: REF per rank every tREFI; per_bank: REFpb to one bank every tREFIpb; none: off")
              .def("all_bank"));
    s.add(param::real("write_high", "drain writes when the write queue is this full").def("0.75").range("0", "1"));
    s.add(param::real("write_low", "stop draining at this fill").def("0.25").range("0", "1"));
    s.add(param::string("mapping", std::string("address mapping: ") + AddressMapping::schemes_help())
              .def("row-bank-rank-column-channel"));
    return s;
  }();
  return spec;
}

}  // namespace

ControllerConfig Dram::controller_config(const ValidatedNode& n, const DramSpec& spec) {
  const Params& p = n.params;
  ControllerConfig c;
  c.read_queue = static_cast<std::size_t>(p.integer("read_queue"));
  c.write_queue = static_cast<std::size_t>(p.integer("write_queue"));
  c.scheduler = p.string("scheduler") == "fcfs" ? ControllerConfig::Scheduler::Fcfs : ControllerConfig::Scheduler::FrFcfs;
  const std::string& page = p.string("page_policy");
  c.page_policy = page == "closed"     ? ControllerConfig::PagePolicy::Closed
                  : page == "adaptive" ? ControllerConfig::PagePolicy::Adaptive
                                       : ControllerConfig::PagePolicy::Open;
  const std::string& refresh = p.string("refresh");
  c.refresh = refresh == "per_bank" ? ControllerConfig::Refresh::PerBank
              : refresh == "none"   ? ControllerConfig::Refresh::None
                                    : ControllerConfig::Refresh::AllBank;
  if (c.refresh == ControllerConfig::Refresh::PerBank && !spec.has_per_bank_refresh())
    throw InputError(p.where("refresh"), n.path + ".refresh",
                     fmt::format("{} has no per-bank refresh (timing.tREFIpb is 0)", spec.standard));
  c.write_high = p.real("write_high");
  c.write_low = p.real("write_low");
  if (c.write_low >= c.write_high)
    throw InputError(p.where("write_low"), n.path + ".write_low",
                     fmt::format("{} is not below write_high = {}", c.write_low, c.write_high));
  return c;
}

DramDescription Dram::describe(const ValidatedNode& node) {
  DramDescription d;
  d.spec = DramSpec::from_config(node, node.params.quantity("clock"));
  d.controller = controller_config(node.child("controller"), d.spec);
  const ValidatedNode& o = node.child("organization");
  d.capacity = MemoryCapacity{d.spec.org.capacity_bytes(), o.loc, o.path};
  return d;
}

namespace {

AddressMapping read_mapping(const ValidatedNode& n, const DramOrganization& org) {
  try {
    return AddressMapping(n.params.string("mapping"), org);
  } catch (const std::invalid_argument& e) {
    throw InputError(n.params.where("mapping"), n.path + ".mapping", e.what());
  }
}

}  // namespace

KindSpec Dram::spec() {
  KindSpec s;
  s.name = "dram";
  s.description = "DRAM channels of one JEDEC standard with per-channel controllers (TLM-2.0 AT target)";
  s.with_clock();  // the command clock, 1 / tCK
  s.add(param::choice("standard", {"DDR4", "DDR5", "LPDDR5", "HBM2", "HBM2E", "HBM3", "GDDR6"},
                      "the standard family: decides the command rules that are not plain timing values (HBM's "
                      "separate row and column command buses)"));
  s.slot(SlotSpec{"organization", "channels, ranks, banks, rows, columns, widths, burst", "section", "", true,
                  &DramSpec::organization_spec()});
  s.slot(SlotSpec{"timing", "timing constraints in tCK", "section", "", true, &DramSpec::timing_spec()});
  s.slot(SlotSpec{"power", "VDD and IDD currents for the energy model", "section", "", true, &DramSpec::power_spec()});
  s.slot(SlotSpec{"controller", "queues, scheduling, page policy, refresh, address mapping", "section", "", false,
                  &controller_spec()});
  s.provides(kMemoryTargetRole);
  s.provides(kDramRole);  // a design may model this DRAM itself (Dram::describe)
  return s;
}

Dram::Dram(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : Component(name, cfg, ctx),
      port_("socket", {[this](int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
                         gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
                         const sc_core::sc_time arrival = clock().next_edge(sc_core::sc_time_stamp() + delay);
                         return try_accept(port, gp, clock().cycle_at(arrival));
                       },
                       {},
                       {},
                       {}}),
      spec_(DramSpec::from_config(cfg, static_cast<double>(clock().frequency_hz()))),
      protocol_(spec_.protocol()),
      controller_config_(controller_config(cfg.child("controller"), spec_)),
      mapping_(read_mapping(cfg.child("controller"), spec_.org)),
      energy_(DramEnergy::from(spec_)),
      requests_(counter("requests", "requests", "requests accepted")),
      bytes_read_(counter("bytes_read", "B", "bytes read from the DRAM")),
      bytes_written_(counter("bytes_written", "B", "bytes written to the DRAM")),
      read_latency_(distribution("read_latency", "ns", "burst read latency, arrival to the end of its data")),
      write_latency_(distribution("write_latency", "ns", "burst write latency, arrival to the end of its data")) {
  act_energy_ = &energy_event("act", energy_.act, "activate-precharge pairs (IDD0)");
  read_energy_ = &energy_event("read", energy_.read, "read bursts (IDD4R)");
  write_energy_ = &energy_event("write", energy_.write, "write bursts (IDD4W)");
  refresh_energy_ = &energy_event("refresh", energy_.refresh, "all-bank refreshes (IDD5B)");
  refresh_bank_energy_ = &energy_event("refresh_bank", energy_.refresh_bank, "per-bank refreshes (IDD5B / banks)");
  active_energy_ = &energy_event("active_standby", energy_.active_cycle,
                                 "rank-cycles with a bank open, above precharged standby (IDD3N - IDD2N)");
  // The host side: the PHY of every channel, the energy of moving each bit across it and the
  // interface's standby power, from the technology table's row for this standard.
  const DramInterfaceCost phy = dram_interface_cost(tech(), lower(spec_.standard));
  // Precharged standby (IDD2N) of every rank, and the interface kept up at its full rate.
  set_background_power(energy_.standby_power + phy.phy_standby_j_per_bit * 8 * spec_.peak_bandwidth());
  io_energy_ = &energy_event("io", phy.io_j_per_bit, "bits moved across the PHY and I/O (technology table)");
  add_area("phy", phy.access.area_mm2 * spec_.org.channels, phy.access.leakage_w * spec_.org.channels);

  const int n = spec_.org.controllers();
  parts_per_channel_.assign(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    auto ch = std::make_unique<Channel>();
    const std::string p = fmt::format("ch{}.", i);
    for (int c = 0; c < protocol_.size(); ++c) {
      const std::string& cmd = protocol_.name(static_cast<DramCmd>(c));
      ch->stats.commands.push_back(&counter(p + "commands." + cmd, "commands", fmt::format("{} commands issued", cmd)));
    }
    ch->stats.reads = &counter(p + "reads", "bursts", "read bursts served");
    ch->stats.writes = &counter(p + "writes", "bursts", "write bursts written");
    ch->stats.forwarded_reads = &counter(p + "forwarded_reads", "bursts", "reads answered from the write queue");
    ch->stats.row_hits = &counter(p + "row_hits", "accesses", "accesses to the open row");
    ch->stats.row_misses = &counter(p + "row_misses", "accesses", "accesses to a closed bank (ACT only)");
    ch->stats.row_conflicts = &counter(p + "row_conflicts", "accesses", "accesses to another open row (PRE + ACT)");
    ch->stats.read_latency = &distribution(p + "read_latency", "ns", "read latency, arrival to the end of its data");
    ch->stats.write_latency = &distribution(p + "write_latency", "ns", "write latency, arrival to the end of its data");
    ch->stats.read_queue = &time_average(p + "read_queue", "requests", "read queue occupancy");
    ch->stats.write_queue = &time_average(p + "write_queue", "requests", "write queue occupancy");
    ch->bytes = &counter(p + "bytes", "B", "bytes read and written");
    if (ctx.check_protocol())
      ch->checker = std::make_unique<ProtocolChecker>(spec_, controller_config_.refresh != ControllerConfig::Refresh::None);
    ch->ctrl = std::make_unique<ChannelController>(spec_, controller_config_, ch->stats, ch->checker.get());
    if (ctx.timeline().requested()) {
      const int track = ctx.timeline().track(fmt::format("{}.ch{} commands", this->name(), i));
      const Clock& clk = clock();
      Timeline& timeline = ctx.timeline();
      ch->ctrl->observe([track, &clk, &timeline, this](const DramCommand& c) {
        const DramCommandInfo& info = protocol_.info(c.cmd);
        timeline.instant_named(
            track,
            [&] {
              return fmt::format("{} r{} bg{} b{}{}", info.name, c.rank, c.bank_group, c.bank,
                                 info.opens_row || info.column ? fmt::format(" row {}", c.row) : "");
            },
            clk.time_of(c.cycle));
      });
    }
    channels_.push_back(std::move(ch));
    sc_core::sc_spawn_options options;
    options.spawn_method();
    options.set_sensitivity(&channels_.back()->wake);
    options.dont_initialize();
    sc_core::sc_spawn(sc_bind(&Dram::run_channel, this, i), fmt::format("ch{}", i).c_str(), &options);
  }

  ctx.report("row_hit_rate", stat_name("row_hit_rate"));
  ctx.report("dram_bandwidth_gbps", stat_name("bandwidth"));
  ctx.report("energy_pj_per_bit", stat_name("energy_per_bit"));
  ctx.report("dram_read_latency_ns", stat_name("read_latency"), "mean");
  ctx.report("dram_p99_read_latency_ns", stat_name("read_latency"), "p99");
}

Dram::~Dram() = default;

void Dram::wake(Channel& ch, std::uint64_t cycle) {
  if (cycle >= ch.wake_at) return;  // an earlier wake-up is already due
  ch.wake_at = cycle;
  ch.wake.notify(clock().time_of(cycle) - sc_core::sc_time_stamp());
}

const Dram::Offer& Dram::decode_offer(int port, const tlm::tlm_generic_payload& gp) {
  if (static_cast<std::size_t>(port) >= offers_.size()) offers_.resize(static_cast<std::size_t>(port) + 1);
  Offer& o = offers_[static_cast<std::size_t>(port)];
  if (o.gp == &gp && o.address == gp.get_address() && o.length == gp.get_data_length() && o.write == gp.is_write())
    return o;
  o.gp = &gp;
  o.address = gp.get_address();
  o.length = gp.get_data_length();
  o.write = gp.is_write();
  const std::uint32_t burst = spec_.org.access_bytes();
  const std::uint64_t first = o.address / burst;
  const std::uint64_t last = (o.address + std::max(1u, o.length) - 1) / burst;
  o.bursts.clear();
  o.channels.clear();
  for (std::uint64_t b = first; b <= last; ++b) {
    o.bursts.push_back(mapping_.decode(b * burst));
    ++parts_per_channel_[static_cast<std::size_t>(o.bursts.back().channel)];
  }
  for (std::size_t c = 0; c < channels_.size(); ++c)
    if (parts_per_channel_[c] > 0) {
      o.channels.emplace_back(static_cast<int>(c), parts_per_channel_[c]);
      parts_per_channel_[c] = 0;
    }
  return o;
}

bool Dram::try_accept(int port, tlm::tlm_generic_payload& gp, std::uint64_t at) {
  const std::uint32_t burst = spec_.org.access_bytes();
  const Offer& offer = decode_offer(port, gp);
  const bool write = offer.write;
  for (const auto& [c, parts] : offer.channels) {
    const std::size_t capacity = write ? controller_config_.write_queue : controller_config_.read_queue;
    if (parts > capacity) {
      // Could never fit: answer with an error rather than wait forever.
      offers_[static_cast<std::size_t>(port)].gp = nullptr;
      gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
      answer(port, &gp, at);
      return true;
    }
    if (channels_[static_cast<std::size_t>(c)]->ctrl->room(write) < parts) return false;
  }
  // Taken: the payload may come back with new contents (a pool reuses it).
  offers_[static_cast<std::size_t>(port)].gp = nullptr;

  std::uint32_t tx = 0;
  if (!write) {
    if (free_transactions_.empty()) {
      free_transactions_.push_back(static_cast<std::uint32_t>(transactions_.size()));
      transactions_.emplace_back();
    }
    tx = free_transactions_.back();
    free_transactions_.pop_back();
    transactions_[tx] = Transaction{&gp, static_cast<std::uint32_t>(offer.bursts.size()), at, port};
  }
  requests_.add();
  for (const DramAddress& a : offer.bursts) {
    Channel& ch = *channels_[a.channel];
    ch.bytes->add(burst);
    (write ? bytes_written_ : bytes_read_).add(burst);
    const ChannelController::Enqueued e = ch.ctrl->enqueue(tx, a, write, at);
    if (e == ChannelController::Enqueued::Forwarded && --transactions_[tx].parts_left == 0) {
      free_transactions_.push_back(tx);
      answer(port, &gp, at);
    }
    if (e == ChannelController::Enqueued::Step) wake(ch, at);
  }
  if (write) answer(port, &gp, at);  // posted
  return true;
}

void Dram::answer(int port, tlm::tlm_generic_payload* gp, std::uint64_t cycle) {
  if (gp->get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE) gp->set_response_status(tlm::TLM_OK_RESPONSE);
  port_.respond(port, *gp, clock().time_of(cycle));
}

void Dram::run_channel(int index) {
  Channel& ch = *channels_[static_cast<std::size_t>(index)];
  const std::uint64_t now = clock().cycle_at(sc_core::sc_time_stamp());
  ch.wake_at = ChannelController::kIdle;
  done_.clear();
  const std::size_t room_before = ch.ctrl->room(false) + ch.ctrl->room(true);
  const std::uint64_t next = ch.ctrl->step(now, done_);
  if (!ch.ctrl->violation().empty())
    throw std::runtime_error(fmt::format("{}.ch{}: DRAM protocol violation: {}", name(), index, ch.ctrl->violation()));
  for (const ChannelController::Completion& c : done_) {
    Transaction& tx = transactions_[c.tag];
    tx.ready = std::max(tx.ready, c.cycle);
    if (--tx.parts_left == 0) {
      free_transactions_.push_back(static_cast<std::uint32_t>(c.tag));
      answer(tx.port, tx.gp, tx.ready);
    }
  }
  if (next != ChannelController::kIdle) wake(ch, next);
  // Requests wait only for queue room, which only a served request frees.
  if (ch.ctrl->room(false) + ch.ctrl->room(true) != room_before) port_.retry();
}

Dram::EnergyBreakdown Dram::channel_energy(const Channel& ch, double seconds) const {
  const auto count = [&](DramCmd c) { return static_cast<double>(ch.stats.commands[static_cast<int>(c)]->count()); };
  EnergyBreakdown e;
  e.act = count(DramCmd::ACT) * energy_.act;
  e.read = count(DramCmd::RD) * energy_.read;
  e.write = count(DramCmd::WR) * energy_.write;
  e.refresh = count(DramCmd::REF) * energy_.refresh + count(DramCmd::REFpb) * energy_.refresh_bank;
  e.background = energy_.standby_power / spec_.org.controllers() * seconds +
                 static_cast<double>(ch.ctrl->active_rank_cycles() + ch.analytic_active_cycles) * energy_.active_cycle;
  return e;
}

MemoryCapacity Dram::capacity() const {
  const ValidatedNode& o = config().child("organization");
  return {spec_.org.capacity_bytes(), o.loc, o.path};
}

double Dram::dynamic_energy_j() const {
  // Events are counted at the end of the run; while it runs, the channels' counters are live.
  double j = 0;
  for (const auto& ch : channels_) {
    const EnergyBreakdown e = channel_energy(*ch, 0);
    j += e.act + e.read + e.write + e.refresh + e.background;
  }
  return j + io_energy_->joules_per_event() * 8.0 * static_cast<double>(bytes_moved());
}

double Dram::streaming_energy_per_byte() const {
  // A read burst and its bits through the I/O; a stream's row activations are a small share.
  return read_energy_->joules_per_event() / static_cast<double>(spec_.org.access_bytes()) +
         8 * io_energy_->joules_per_event();
}

DramAnalytic& Dram::analytic() const {
  if (!analytic_) analytic_ = std::make_unique<DramAnalytic>(spec_, controller_config_, mapping_);
  return *analytic_;
}

double Dram::unloaded_latency(bool write) const {
  // A read to a closed bank: ACT, tRCD, RD, CL, the burst. Writes are posted: answered on
  // acceptance, at the next edge.
  const DramTiming& t = spec_.timing;
  return (write ? 1 : t.tRCD + t.CL + t.tBURST) * spec_.tck_s;
}

std::uint64_t Dram::queue_requests(std::uint64_t request_bytes) const {
  const std::uint64_t access = spec_.org.access_bytes();
  const std::uint64_t bursts = std::max<std::uint64_t>(1, (request_bytes + access - 1) / access);
  return std::max<std::uint64_t>(1, controller_config_.read_queue * static_cast<std::uint64_t>(spec_.org.controllers()) / bursts);
}

void Dram::account_analytic(const AnalyticTransfer& tr) {
  if (tr.bytes() == 0) return;
  const std::uint64_t access = spec_.org.access_bytes();
  const std::uint64_t stride = tr.stride == 0 ? tr.row_bytes : tr.stride;
  // try_accept() splits each request into the bursts it touches. Requests aligned to at least
  // a burst touch a row's bursts once between them; smaller ones one burst each.
  const auto row_bursts = [&](std::uint64_t address) {
    return (address + tr.row_bytes - 1) / access - address / access + 1;
  };
  std::uint64_t bursts = 0;
  if (tr.request_align < access) {
    bursts = tr.requests;
  } else if (tr.rows == 1 || stride % access == 0) {
    bursts = tr.rows * row_bursts(tr.address);
  } else {
    for (std::uint64_t r = 0; r < tr.rows; ++r) bursts += row_bursts(tr.address + r * stride);
  }
  // Random rows each open their own row (and the rows after it, when longer than a page visit).
  const double activations =
      tr.random ? static_cast<double>(tr.rows) * std::max(1.0, analytic().activations(row_bursts(0), false))
                : analytic().activations(tr.address, tr.rows, tr.row_bytes, stride, tr.streams > 1);
  requests_.add(tr.requests);
  analytic_busy_.emplace_back(tr.start_s, tr.end_s);
  (tr.write ? analytic_writes_ : analytic_reads_) += bursts;
  (tr.write ? bytes_written_ : bytes_read_).add(bursts * access);
  analytic_activations_ += std::min(activations, static_cast<double>(bursts));
}

void Dram::finalize_analytic(std::uint64_t end_cycle) {
  const int n = spec_.org.controllers();
  const auto share = [n](std::uint64_t total, int i) {
    return total / static_cast<std::uint64_t>(n) + (static_cast<std::uint64_t>(i) < total % static_cast<std::uint64_t>(n) ? 1 : 0);
  };
  const auto activations = static_cast<std::uint64_t>(std::llround(analytic_activations_));
  // Refreshes fall due per rank at the controller's staggered times (as ChannelController
  // schedules them) whether or not the channel is busy. With open pages a rank is active (a bank
  // open) from an access until the next all-bank refresh closes its banks (per-bank refresh
  // never closes them all): per rank, the union of [first access, next refresh) over the
  // transfers' busy intervals, less the refreshes' share; all-bank refreshes that find the rank
  // active precharge it first (PREA).
  const bool per_bank = controller_config_.refresh == ControllerConfig::Refresh::PerBank;
  const bool refresh = controller_config_.refresh != ControllerConfig::Refresh::None;
  const double interval = static_cast<double>(per_bank ? spec_.timing.tREFIpb : spec_.timing.tREFI);
  std::sort(analytic_busy_.begin(), analytic_busy_.end());
  std::uint64_t refreshes = 0, prea = 0;
  double active = 0;  // rank-cycles per controller
  const double end = static_cast<double>(end_cycle);
  for (int r = 0; r < spec_.org.ranks; ++r) {
    const double first = interval * (r + 1) / spec_.org.ranks;
    if (refresh && end >= first) refreshes += static_cast<std::uint64_t>((end - first) / interval) + 1;
    // The refresh at or after cycle t that closes the rank (the end of the run when none does).
    const auto closing = [&](double t) {
      if (!refresh || per_bank) return end;
      return std::min(end, t <= first ? first : first + std::ceil((t - first) / interval) * interval);
    };
    double open_from = -1, open_to = -1;
    const auto close = [&] {
      if (open_to <= open_from) return;
      active += open_to - open_from;
      if (refresh && !per_bank && open_to >= first)  // refreshes in (open_from, open_to]
        prea += static_cast<std::uint64_t>(std::floor((open_to - first) / interval + 1e-9)) + 1 -
                (open_from < first ? 0 : static_cast<std::uint64_t>(std::floor((open_from - first) / interval + 1e-9)) + 1);
    };
    for (const auto& [a, b] : analytic_busy_) {
      const double from = std::min(end, a / spec_.tck_s), to = closing(b / spec_.tck_s);
      if (from > open_to) {
        close();
        open_from = from;
        open_to = to;
      } else {
        open_to = std::max(open_to, to);
      }
    }
    close();
  }
  active *= 1 - analytic().refresh_overhead();
  const std::uint64_t access = spec_.org.access_bytes();
  for (int i = 0; i < n; ++i) {
    Channel& ch = *channels_[static_cast<std::size_t>(i)];
    ChannelStats& s = ch.stats;
    const std::uint64_t reads = share(analytic_reads_, i), writes = share(analytic_writes_, i);
    const std::uint64_t acts = std::min(share(activations, i), reads + writes);
    s.commands[static_cast<int>(DramCmd::RD)]->add(reads);
    s.commands[static_cast<int>(DramCmd::WR)]->add(writes);
    s.commands[static_cast<int>(DramCmd::ACT)]->add(acts);
    // Every activation closes the row before it (PRE, or PREA before a refresh); all-bank
    // refreshes find a bank open as often as the rank is active.
    s.commands[static_cast<int>(DramCmd::PRE)]->add(acts);
    s.commands[static_cast<int>(per_bank ? DramCmd::REFpb : DramCmd::REF)]->add(refreshes);
    if (!per_bank) s.commands[static_cast<int>(DramCmd::PREA)]->add(std::min(prea, refreshes));
    s.reads->add(reads);
    s.writes->add(writes);
    s.row_hits->add(reads + writes - acts);
    s.row_conflicts->add(acts);
    ch.bytes->add((reads + writes) * access);
    ch.analytic_active_cycles = static_cast<std::uint64_t>(std::llround(active));
  }
}

std::vector<double> Dram::reuse_totals(const sc_core::sc_time& now) const {
  std::vector<double> totals;
  const std::uint64_t cycle = clock().cycle_at(now);
  for (const auto& ch : channels_) totals.push_back(static_cast<double>(ch->ctrl->active_rank_cycles_at(cycle)));
  return totals;
}

void Dram::repeat_totals(const std::vector<double>& since, double times, const sc_core::sc_time& now) {
  const std::vector<double> totals = reuse_totals(now);
  for (std::size_t i = 0; i < channels_.size(); ++i)
    channels_[i]->ctrl->add_active_rank_cycles(
        scaled_count(static_cast<std::uint64_t>(totals[i] - since.at(i)), times));
}

void Dram::finalize(const sc_core::sc_time& end) {
  const std::uint64_t end_cycle = clock().cycle_at(end);
  const double t = reported_s(end);
  if (context().analytic()) finalize_analytic(end_cycle);
  const auto rate = [](std::uint64_t part, std::uint64_t whole) {
    return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
  };
  std::uint64_t hits = 0, accesses = 0, active = 0;
  std::vector<std::uint64_t> cmds(static_cast<std::size_t>(protocol_.size()), 0);
  double energy = 0;
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    Channel& ch = *channels_[i];
    ch.ctrl->finish(end_cycle, !context().analytic());
    const ChannelStats& s = ch.stats;
    // One sample per burst in one table, not two: the totals are gathered here.
    read_latency_.merge(*s.read_latency);
    write_latency_.merge(*s.write_latency);
    const std::string p = fmt::format("ch{}.", i);
    const std::uint64_t ch_accesses = s.row_hits->count() + s.row_misses->count() + s.row_conflicts->count();
    hits += s.row_hits->count();
    accesses += ch_accesses;
    for (std::size_t c = 0; c < cmds.size(); ++c) cmds[c] += s.commands[c]->count();
    active += ch.ctrl->active_rank_cycles() + ch.analytic_active_cycles;
    scalar(p + "row_hit_rate", "fraction", "row hits over accesses").set(rate(s.row_hits->count(), ch_accesses));
    scalar(p + "bandwidth", "GB/s", "bytes over simulated time")
        .set(t > 0 ? static_cast<double>(ch.bytes->count()) / t * 1e-9 : 0);
    const EnergyBreakdown e = channel_energy(ch, t);
    scalar(p + "energy.act", "J", "activate-precharge energy").set(e.act);
    scalar(p + "energy.read", "J", "read burst energy").set(e.read);
    scalar(p + "energy.write", "J", "write burst energy").set(e.write);
    scalar(p + "energy.refresh", "J", "refresh energy").set(e.refresh);
    scalar(p + "energy.background", "J", "standby energy: precharged, plus active while a bank is open").set(e.background);
    energy += e.act + e.read + e.write + e.refresh + e.background;
  }
  // The component's energy events: close_accounting turns them (and the standby power) into
  // energy.* and energy.total, the same sum as the channels' breakdowns.
  act_energy_->add(cmds[static_cast<int>(DramCmd::ACT)]);
  read_energy_->add(cmds[static_cast<int>(DramCmd::RD)]);
  write_energy_->add(cmds[static_cast<int>(DramCmd::WR)]);
  refresh_energy_->add(cmds[static_cast<int>(DramCmd::REF)]);
  refresh_bank_energy_->add(cmds[static_cast<int>(DramCmd::REFpb)]);
  active_energy_->add(active);
  io_energy_->add(8 * bytes_moved());
  for (std::size_t c = 0; c < cmds.size(); ++c) {
    const std::string& cmd = protocol_.name(static_cast<DramCmd>(c));
    scalar(std::string("commands.") + cmd, "commands", fmt::format("{} commands issued on all channels", cmd))
        .set(static_cast<double>(cmds[c]));
  }
  const std::uint64_t bytes = bytes_moved();
  scalar("row_hit_rate", "fraction", "row hits over accesses, all channels").set(rate(hits, accesses));
  scalar("bandwidth", "GB/s", "bytes read and written over simulated time")
      .set(t > 0 ? static_cast<double>(bytes) / t * 1e-9 : 0);
  scalar("peak_bandwidth", "GB/s", "the standard's peak data bandwidth, all channels").set(spec_.peak_bandwidth() * 1e-9);
  scalar("energy_per_bit", "pJ/bit", "DRAM device energy (IDD model, I/O excluded) over bits read and written")
      .set(bytes ? energy / (8.0 * static_cast<double>(bytes)) * 1e12 : 0);
}

}  // namespace strata
