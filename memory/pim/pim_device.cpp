#include "memory/pim/pim_device.h"

#include <stdexcept>

#include <fmt/format.h>

#include "memory/dram/dram_interface_cost.h"

namespace strata {

PimUnitEnergy PimUnitEnergy::from(const TechTable& tech, const DramSpec& dram, const PimSpec& pim,
                                  const std::string& standard) {
  PimUnitEnergy e;
  const std::string mul = "mul." + pim.format, add = "add." + pim.format;
  // The lanes multiply and add in the format itself (HBM-PIM's FP16 multiplier and adder arrays).
  e.mac_lane = tech.has_op(mul) && tech.has_op(add) ? tech.op(mul).energy_j + tech.op(add).energy_j
                                                    : tech.mac(pim.format).energy_j;
  const int width = pim.lanes * pim.element_bytes() * 8;
  e.register_access = tech.register_file_read(pim.input_registers + pim.accumulators, width).energy_j;
  e.column = (pim.cell_read_j_per_bit + pim.path_j_per_bit) * width;
  e.io_per_bit = dram_interface_cost(tech, standard).io_j_per_bit;
  (void)dram;
  e.source = fmt::format("{}: {} + {} per lane; register file of {} x {} bit; cell and path per bit from the pim section",
                         tech.name(), mul, add, pim.input_registers + pim.accumulators, width);
  return e;
}

double PimUnitEnergy::unit_area_mm2(const TechTable& tech, const DramSpec& dram, const PimSpec& pim) {
  if (pim.unit_area_mm2 > 0) return pim.unit_area_mm2;
  (void)dram;
  const std::string mul = "mul." + pim.format, add = "add." + pim.format;
  const double lane = tech.has_op(mul) && tech.has_op(add) ? tech.op(mul).area_mm2 + tech.op(add).area_mm2
                                                           : tech.mac(pim.format).area_mm2;
  const int width = pim.lanes * pim.element_bytes() * 8;
  return pim.lanes * lane + tech.register_file_read(pim.input_registers + pim.accumulators, width).area_mm2;
}

struct PimDevice::Channel {
  ChannelStats stats;
  std::unique_ptr<ProtocolChecker> checker;
  std::unique_ptr<ChannelController> ctrl;
  PimProgram* program = nullptr;  // the program being run
  DramCommand last;               // the last command it issued
};

PimDevice::PimDevice(const DramSpec& dram, const ControllerConfig& controller, const PimSpec& pim,
                     const TechTable& tech, const std::string& standard_key, Options options)
    : dram_(make_pim_dram(dram, pim)),
      pim_(pim),
      protocol_(dram_.protocol()),
      cmd_(PimCommands::in(protocol_)),
      energy_(DramEnergy::from(dram_)),
      unit_energy_(PimUnitEnergy::from(tech, dram_, pim, standard_key)),
      options_(options) {
  const double units = pim_.units_per_rank(dram_.org);
  const PimUnitEnergy& u = unit_energy_;
  for (int i = 0; i < protocol_.size(); ++i) {
    const auto c = static_cast<DramCmd>(i);
    CommandCost k;
    if (c == DramCmd::ACT) k = {energy_.act, "row activations (IDD0)"};
    else if (c == cmd_.ACTAB) k = {energy_.act * dram_.org.banks_per_rank(), "all-bank activations (IDD0 x banks)"};
    else if (c == DramCmd::RD || c == cmd_.RDMAC) k = {energy_.read, "read bursts to the host (IDD4R)"};
    else if (c == DramCmd::WR || c == cmd_.WRGB) k = {energy_.write, "write bursts from the host (IDD4W)"};
    else if (c == DramCmd::REF) k = {energy_.refresh, "all-bank refreshes (IDD5B)"};
    else if (c == DramCmd::REFpb) k = {energy_.refresh_bank, "per-bank refreshes"};
    else if (c == cmd_.MACAB)
      k = {units * (u.column + pim_.lanes * u.mac_lane + u.register_access),
           "all-bank MACs: every unit's column read, lanes and registers (" + u.source + ")"};
    else if (c == cmd_.MOVAB) k = {units * (u.column + u.register_access), "all-bank register writes into the rows"};
    cost_.push_back(k);
  }
  // Every channel runs the same stream (pim_device.h): one controller stands for them all.
  auto ch = std::make_unique<Channel>();
  ChannelStats& s = ch->stats;
  for (int c = 0; c < protocol_.size(); ++c)
    s.commands.push_back(&stats_.counter("commands." + protocol_.name(static_cast<DramCmd>(c)), "", ""));
  s.reads = &stats_.counter("reads", "", "");
  s.writes = &stats_.counter("writes", "", "");
  s.forwarded_reads = &stats_.counter("forwarded", "", "");
  s.row_hits = &stats_.counter("hits", "", "");
  s.row_misses = &stats_.counter("misses", "", "");
  s.row_conflicts = &stats_.counter("conflicts", "", "");
  s.read_latency = &stats_.distribution("read_latency", "", "");
  s.write_latency = &stats_.distribution("write_latency", "", "");
  s.read_queue = &stats_.time_average("read_queue", "", "");
  s.write_queue = &stats_.time_average("write_queue", "", "");
  s.stream_reopens = &stats_.counter("reopens", "", "");
  if (options.check_protocol)
    ch->checker = std::make_unique<ProtocolChecker>(dram_, controller.refresh != ControllerConfig::Refresh::None);
  ch->ctrl = std::make_unique<ChannelController>(dram_, controller, ch->stats, ch->checker.get());
  Channel* raw = ch.get();
  ch->ctrl->observe([this, raw](const DramCommand& c) {
    raw->last = c;
    if (!options_.functional || !raw->program) return;
    const PimSegment* head = raw->program->head();
    DramCommand h;
    if (!head || !raw->program->peek(h) || h.cmd != c.cmd || h.row != c.row || h.column != c.column || h.rank != c.rank)
      return;  // a refresh, or a row reopened after one
    for (auto& u : units_) u->execute(c, *head, raw->program->head_index(), *raw->program);
  });
  channels_.push_back(std::move(ch));
  if (options.functional)
    for (int i = 0; i < channels(); ++i) units_.push_back(std::make_unique<PimUnits>(dram_, pim_, cmd_, options.round));
}

PimDevice::~PimDevice() = default;

void PimDevice::use_timing_for_scheduling(const DramSpec& wrong_dram, const PimSpec& wrong_pim) {
  channels_.front()->ctrl->use_timing_for_scheduling(make_pim_dram(wrong_dram, wrong_pim));
}

PimDevice::Snapshot PimDevice::snapshot(std::uint64_t at) const {
  const Channel& ch = *channels_.front();
  Snapshot s;
  for (const Counter* c : ch.stats.commands) s.commands.push_back(c->count());
  s.reopens = ch.stats.stream_reopens->count();
  s.active = ch.ctrl->active_rank_cycles_at(at);
  return s;
}

void PimDevice::measure(const Snapshot& before, PimRun& r) const {
  const Snapshot now = snapshot(r.end);
  const auto n = static_cast<std::uint64_t>(channels());
  r.commands.clear();
  for (std::size_t c = 0; c < now.commands.size(); ++c)
    r.commands.push_back((now.commands[c] - before.commands[c]) * n);
  r.reopens = (now.reopens - before.reopens) * n;
  r.active_rank_cycles = (now.active - before.active) * n;
  r.energy_j = static_cast<double>(r.active_rank_cycles) * energy_.active_cycle;
  for (std::size_t c = 0; c < r.commands.size(); ++c) {
    const auto n_c = static_cast<double>(r.commands[c]);
    r.energy_j += n_c * cost_[c].joules;
    if (host_burst(static_cast<DramCmd>(c)))
      r.energy_j += n_c * dram_.org.access_bytes() * 8.0 * unit_energy_.io_per_bit;
  }
}

PimRun PimDevice::idle_until(std::uint64_t end) {
  const Snapshot before = snapshot(now_);
  PimRun r;
  r.start = now_;
  r.end = std::max(now_, end);
  channels_.front()->ctrl->finish(r.end);
  now_ = r.end;
  measure(before, r);
  return r;
}

PimRun PimDevice::run(PimProgram& program) {
  Channel& ch = *channels_.front();
  ChannelController& ctrl = *ch.ctrl;
  const Snapshot before = snapshot(now_);
  program.rewind();
  ch.program = &program;
  PimRun r;
  r.start = now_;
  ctrl.start_stream(&program, now_);
  std::vector<ChannelController::Completion> done;
  std::uint64_t t = now_;
  while (ctrl.stream_running()) {
    const std::uint64_t next = ctrl.step(t, done);
    if (!ctrl.violation().empty()) throw std::runtime_error("PIM protocol check: " + ctrl.violation());
    if (next == ChannelController::kIdle) break;
    t = next;
  }
  ch.program = nullptr;
  // The last command's own tail: data of a read or write, a precharge's tRP.
  const DramTiming& tm = dram_.timing;
  std::uint64_t tail = 1;
  if (ch.last.cmd == DramCmd::RD || ch.last.cmd == cmd_.RDMAC) tail = static_cast<std::uint64_t>(tm.CL + tm.tBURST);
  else if (ch.last.cmd == DramCmd::WR || ch.last.cmd == cmd_.WRGB || ch.last.cmd == cmd_.MOVAB)
    tail = static_cast<std::uint64_t>(tm.CWL + tm.tBURST);
  else if (protocol_.info(ch.last.cmd).closes_row) tail = static_cast<std::uint64_t>(tm.tRP);
  r.end = std::max(now_, ctrl.stream_last_cycle() + tail);
  now_ = r.end;
  measure(before, r);
  return r;
}

}  // namespace strata
