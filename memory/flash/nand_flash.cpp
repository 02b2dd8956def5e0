#include "memory/flash/nand_flash.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "memory/flash/nand_cost.h"
#include "memory/flash/outlier_ecc.h"
#include "sim/kernel.h"
#include "sim/rounding.h"
#include "sim/simulated_time.h"

namespace strata {
namespace {

const KindSpec& organization_section() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "nand_organization";
    s.category = "section";
    s.description = "the device's channels, chips, dies, planes, blocks and pages";
    s.add(param::integer("channels", "channel buses, each with its chips").range("1", "1024"));
    s.add(param::integer("chips_per_channel", "chips (packages' targets) sharing a channel bus").range("1", "64"));
    s.add(param::integer("dies_per_chip", "dies (LUNs) of a chip").def("2").range("1", "16"));
    s.add(param::integer("planes_per_die", "planes of a die, each with its array, data and cache registers")
              .def("2")
              .range("1", "16"));
    s.add(param::integer("blocks_per_plane", "erase blocks of a plane").def("2048").range("1", "1048576"));
    s.add(param::integer("pages_per_block", "pages of a block").def("256").range("1", "65536"));
    s.add(param::quantity("page", UnitFamily::Size, "data bytes of a page: 4, 8 or 16 KiB").def("16 KiB"));
    s.add(param::quantity("spare", UnitFamily::Size, "spare (out-of-band) bytes of a page: ECC and metadata")
              .def("1664 B"));
    return s;
  }();
  return spec;
}

const KindSpec& timing_section() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "nand_timing";
    s.category = "section";
    s.description = "array and bus timing";
    s.add(param::quantity("tR", UnitFamily::Time, "array read of a page into the data register").def("30 us"));
    s.add(param::quantity("tPROG", UnitFamily::Time, "page program").def("750 us"));
    s.add(param::quantity("tBERS", UnitFamily::Time, "block erase").def("3.8 ms"));
    s.add(param::quantity("t_register", UnitFamily::Time, "data register to cache register").def("0 s"));
    s.add(param::quantity("bus_rate", UnitFamily::Frequency, "channel bus transfers a second (ONFI/Toggle MT/s)")
              .def("1000 MHz"));
    s.add(param::integer("bus_width", "channel bus width in bits").def("8").range("1", "64"));
    s.add(param::integer("command_cycles", "bus transfers of a command with its address").def("7").range("0", "64"));
    s.add(param::quantity("t_ecc", UnitFamily::Time,
                          "the on-die ECC unit's decode of a page (with ecc: outlier), after the register move")
              .def("0 s"));
    s.add(param::boolean("cache_read",
                         "cache reads: a plane starts its next array read once the page reaches the cache register")
              .def("true"));
    return s;
  }();
  return spec;
}

}  // namespace

KindSpec NandFlash::spec() {
  KindSpec s;
  s.name = "nand_flash";
  s.description = "NAND flash: channels of dies and planes, page reads and programs (TLM-2.0 AT target)";
  s.with_clock();
  s.add(param::integer("queue_depth", "requests accepted and not yet answered; more wait for END_REQ")
            .def("256")
            .range("1", "1048576"));
  s.add(param::choice("ecc", {"none", "outlier"},
                      "outlier: Cambricon-LLM's outlier-oriented ECC (outlier_ecc.h), stored in the spare area (which "
                      "must hold it) and decoded on die in timing.t_ecc a page")
            .def("none"));
  s.slot(SlotSpec{"organization", "channels, chips, dies, planes, blocks, pages", "section", "", true,
                  &organization_section()});
  s.slot(SlotSpec{"timing", "array and channel-bus timing", "section", "", false, &timing_section()});
  s.provides(kMemoryTargetRole);
  s.provides(kNandFlashRole);  // a design may run its controller (flash_device.h)
  return s;
}

namespace {

FlashSpec flash_spec(const ValidatedNode& cfg) {
  FlashSpec f;
  const Params& o = cfg.child("organization").params;
  f.channels = static_cast<int>(o.integer("channels"));
  f.chips_per_channel = static_cast<int>(o.integer("chips_per_channel"));
  f.dies_per_chip = static_cast<int>(o.integer("dies_per_chip"));
  f.planes_per_die = static_cast<int>(o.integer("planes_per_die"));
  f.blocks_per_plane = o.integer("blocks_per_plane");
  f.pages_per_block = o.integer("pages_per_block");
  f.page_bytes = static_cast<std::uint64_t>(o.quantity("page"));
  // The page sizes NAND parts have, as documented: a page of a few bytes made a 16 KiB request
  // thousands of page operations (a run that never ends) and is no device.
  if (f.page_bytes != 4096 && f.page_bytes != 8192 && f.page_bytes != 16384)
    throw InputError(o.where("page"), cfg.path + ".organization.page",
                     fmt::format("{:g} B is not a NAND page size: 4, 8 or 16 KiB", o.quantity("page")));
  f.spare_bytes = static_cast<std::uint64_t>(o.quantity("spare"));
  const Params& t = cfg.child("timing").params;
  f.t_read = t.quantity("tR");
  f.t_program = t.quantity("tPROG");
  f.t_erase = t.quantity("tBERS");
  f.t_register = t.quantity("t_register");
  f.bus_transfers_per_s = t.quantity("bus_rate");
  f.bus_bytes_per_s = f.bus_transfers_per_s * static_cast<double>(t.integer("bus_width")) / 8;
  f.command_cycles = static_cast<int>(t.integer("command_cycles"));
  f.cache_read = t.flag("cache_read");
  if (cfg.params.string("ecc") == "outlier") {
    // The register move and the decode before the data leave the die.
    f.t_register += t.quantity("t_ecc");
    const std::uint64_t need = outlier_ecc_bytes(static_cast<std::int64_t>(f.page_bytes));
    if (need > f.spare_bytes)
      throw InputError(o.where("spare"), cfg.path + ".organization.spare",
                       fmt::format("the outlier ECC of a {} B page needs {} B of spare area, more than {} B",
                                   f.page_bytes, need, f.spare_bytes));
  }
  return f;
}

}  // namespace

NandFlash::NandFlash(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx)
    : Component(name, cfg, ctx),
      port_("socket", {[this](int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
                         return accept(port, gp, delay);
                       },
                       {},
                       [this](tlm::tlm_generic_payload&) {
                         --inflight_;
                         const sc_core::sc_time now = sc_core::sc_time_stamp();
                         port_.retry(clock().next_edge(now) - now);
                       },
                       [this](tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) { b_transport(gp, delay); }}),
      timeline_(flash_spec(cfg)),
      queue_depth_(static_cast<std::size_t>(params().integer("queue_depth"))),
      reads_(counter("reads", "requests", "read requests served")),
      writes_(counter("writes", "requests", "write (program) requests served")),
      bytes_(counter("bytes", "B", "bytes read and written")),
      service_latency_(distribution("service_latency", "us", "time from a request's acceptance to its data")),
      channel_utilization_(scalar("channel_utilization", "fraction", "channel buses' busy time over channels x time")),
      plane_utilization_(scalar("plane_utilization", "fraction", "planes' busy time over planes x time")),
      page_read_(energy_event("page_read", nand_cost(tech()).read_j * page_scale(), "pages read from the arrays")),
      page_program_(energy_event("page_program", nand_cost(tech()).program_j * page_scale(), "pages programmed")),
      io_bit_(energy_event("io", nand_cost(tech()).io_j_per_bit, "bits over the channel buses")) {
  scalar("capacity", "B", "data bytes of the device").set(static_cast<double>(timeline_.spec().capacity()));
}

MemoryCapacity NandFlash::capacity() const {
  const ValidatedNode& o = config().child("organization");
  return {timeline_.spec().capacity(), o.loc, o.path};
}

double NandFlash::page_scale() const {
  // The table's energies are per page of its own size.
  return static_cast<double>(timeline_.spec().page_bytes) / std::max(1.0, nand_cost(tech()).page_bytes);
}

double NandFlash::streaming_energy_per_byte() const {
  return page_read_.joules_per_event() / static_cast<double>(timeline_.spec().page_bytes) +
         8 * io_bit_.joules_per_event();
}

double NandFlash::unloaded_latency(bool write) const {
  const FlashSpec& s = timeline_.spec();
  return write ? s.program_latency(0) : s.read_latency(0);
}

double NandFlash::serve(bool write, std::uint64_t address, std::uint64_t bytes, double arrival) {
  const std::uint64_t pages_before = timeline_.page_reads() + timeline_.page_programs();
  const double done = write ? timeline_.program(address, bytes, arrival) : timeline_.read(address, bytes, arrival);
  const std::uint64_t pages = timeline_.page_reads() + timeline_.page_programs() - pages_before;
  (write ? page_program_ : page_read_).add(pages);
  (write ? writes_ : reads_).add();
  bytes_.add(bytes);
  io_bit_.add(8 * bytes);
  service_latency_.sample((done - arrival) * 1e6);
  return done;
}

bool NandFlash::accept(int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (inflight_ >= queue_depth_) return false;
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  const sc_core::sc_time arrival = clock().next_edge(sc_core::sc_time_stamp() + delay);
  double done = serve(gp.is_write(), gp.get_address(), gp.get_data_length(), to_seconds(arrival));
  if (!reachable_time(*this, done)) done = to_seconds(arrival);  // the run is failing: answer now
  ++inflight_;
  port_.respond(port, gp, clock().next_edge(sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(std::llround(done * 1e15)))));
  delay = arrival - sc_core::sc_time_stamp();
  return true;
}

void NandFlash::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const double start = to_seconds(sc_core::sc_time_stamp() + delay);
  double done = serve(gp.is_write(), gp.get_address(), gp.get_data_length(), start);
  if (!reachable_time(*this, done)) done = start;  // the run is failing: answer now
  delay = sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(std::llround(done * 1e15))) - sc_core::sc_time_stamp();
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

FlashTimeline& NandFlash::direct_controller(SimContext& ctx) {
  if (!idle_controller_) {
    idle_controller_ =
        std::make_unique<AtInitiator>("controller", [](tlm::tlm_generic_payload&, const sc_core::sc_time&) {});
    bind_at(ctx, idle_controller_->socket(), port_.socket(), std::string(basename()) + "_controller");
  }
  return timeline_;
}

void NandFlash::count_direct(std::uint64_t pages, std::uint64_t channel_bytes) {
  page_read_.add(pages);
  io_bit_.add(8 * channel_bytes);
}

void NandFlash::account_analytic(const AnalyticTransfer& t) {
  const FlashSpec& s = timeline_.spec();
  const std::uint64_t pages = ceil_div(t.bytes(), s.page_bytes);
  (t.write ? writes_ : reads_).add(t.requests);
  bytes_.add(t.bytes());
  io_bit_.add(8 * t.bytes());
  (t.write ? page_program_ : page_read_).add(pages);
  analytic_pages_ += pages;
  analytic_busy_ += static_cast<double>(t.bytes()) / s.bus_bytes_per_s;
}

void NandFlash::finalize(const sc_core::sc_time& end) {
  const FlashSpec& s = timeline_.spec();
  const double t = reported_s(end);
  const double channel = timeline_.channel_busy() + analytic_busy_;
  channel_utilization_.set(t > 0 ? std::min(1.0, channel / (t * s.channels)) : 0);
  const double plane = timeline_.plane_busy() + static_cast<double>(analytic_pages_) * s.t_read;
  plane_utilization_.set(t > 0 ? std::min(1.0, plane / (t * s.planes())) : 0);
}

}  // namespace strata
