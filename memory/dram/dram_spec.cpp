#include "memory/dram/dram_spec.h"

#include <fmt/format.h>

#include "sim/input_error.h"

namespace strata {
namespace {

bool power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

struct Family {
  const char* name;
  DramFamily family;
};
constexpr Family kFamilies[] = {{"DDR4", DramFamily::DDR4},     {"DDR5", DramFamily::DDR5},
                                {"LPDDR5", DramFamily::LPDDR5}, {"HBM2", DramFamily::HBM2},
                                {"HBM2E", DramFamily::HBM2E},   {"HBM3", DramFamily::HBM3},
                                {"GDDR6", DramFamily::GDDR6}};

}  // namespace

const char* family_name(DramFamily f) {
  for (const Family& x : kFamilies)
    if (x.family == f) return x.name;
  return "?";
}

std::uint64_t DramOrganization::capacity_bytes() const {
  return static_cast<std::uint64_t>(controllers()) * static_cast<std::uint64_t>(ranks) *
         static_cast<std::uint64_t>(banks_per_rank()) * static_cast<std::uint64_t>(rows) * row_bytes();
}

DramProtocol DramSpec::protocol() const {
  DramProtocol p = DramProtocol::standard(timing);
  if (extend_protocol) extend_protocol(p, *this);
  return p;
}

bool DramSpec::separate_row_column_buses() const {
  return family == DramFamily::HBM2 || family == DramFamily::HBM2E || family == DramFamily::HBM3;
}

double DramSpec::peak_bandwidth() const {
  return static_cast<double>(org.controllers()) * org.access_bytes() / (timing.tBURST * tck_s);
}

const KindSpec& DramSpec::organization_spec() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "organization";
    s.category = "section";
    s.description = "how the DRAM is organised";
    s.add(param::integer("channels", "independent channels").range("1", "1024"));
    s.add(param::integer("pseudo_channels", "pseudo-channels per channel (HBM), each with its own controller")
              .def("1")
              .range("1", "16"));
    s.add(param::integer("ranks", "ranks (HBM: stack IDs) per (pseudo-)channel").range("1", "16"));
    s.add(param::integer("bank_groups", "bank groups per rank").range("1", "64"));
    s.add(param::integer("banks_per_group", "banks per bank group").range("1", "64"));
    s.add(param::integer("rows", "rows per bank").range("1", "16777216"));
    s.add(param::integer("columns", "columns per row, in device-width words").range("1", "1048576"));
    s.add(param::integer("device_width", "data bits per device (x4, x8, x16; the pseudo-channel width for HBM)")
              .range("1", "1024"));
    s.add(param::integer("bus_width", "data bits per (pseudo-)channel").range("8", "4096"));
    s.add(param::integer("burst_length", "beats per column access (BL)").range("1", "64"));
    return s;
  }();
  return spec;
}

const KindSpec& DramSpec::timing_spec() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "timing";
    s.category = "section";
    s.description = "timing constraints in command-clock cycles (tCK)";
#define STRATA_DRAM_TIMING_PARAM(name, description) \
  s.add(param::integer(#name, description).range("0", "100000000"));
    STRATA_DRAM_TIMINGS(STRATA_DRAM_TIMING_PARAM)
#undef STRATA_DRAM_TIMING_PARAM
    // Constraints some standards do not have default to 0 (no constraint).
    for (ParamSpec& p : s.params)
      if (p.name == "tPPD" || p.name == "tREFIpb" || p.name == "tRFCpb" || p.name == "tRREFD") p.def("0");
    return s;
  }();
  return spec;
}

const KindSpec& DramSpec::power_spec() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "power";
    s.category = "section";
    s.description = "supply voltage and IDD currents per device, for the IDD energy model";
    s.add(param::quantity("VDD", UnitFamily::Voltage, "core supply voltage").range("0.1 V", "5 V"));
    const auto current = [&s](const char* name, const char* description) {
      s.add(param::quantity(name, UnitFamily::Current, description).range("0 mA", "100 A"));
    };
    current("IDD0", "one bank activating and precharging at tRC");
    current("IDD2N", "precharged standby (all banks closed)");
    current("IDD3N", "active standby (a bank open)");
    current("IDD4R", "burst read");
    current("IDD4W", "burst write");
    current("IDD5B", "burst refresh");
    return s;
  }();
  return spec;
}

DramSpec DramSpec::from_config(const ValidatedNode& node, double clock_hz) {
  DramSpec d;
  d.standard = node.params.string("standard");
  for (const Family& f : kFamilies)
    if (d.standard == f.name) d.family = f.family;
  d.tck_s = 1.0 / clock_hz;

  const ValidatedNode& o = node.child("organization");
  const auto integer = [](const ValidatedNode& n, const char* key) { return static_cast<int>(n.params.integer(key)); };
  d.org.channels = integer(o, "channels");
  d.org.pseudo_channels = integer(o, "pseudo_channels");
  d.org.ranks = integer(o, "ranks");
  d.org.bank_groups = integer(o, "bank_groups");
  d.org.banks_per_group = integer(o, "banks_per_group");
  d.org.rows = o.params.integer("rows");
  d.org.columns = integer(o, "columns");
  d.org.device_width = integer(o, "device_width");
  d.org.bus_width = integer(o, "bus_width");
  d.org.burst_length = integer(o, "burst_length");

  const ValidatedNode& t = node.child("timing");
#define STRATA_DRAM_TIMING_READ(name, description) d.timing.name = integer(t, #name);
  STRATA_DRAM_TIMINGS(STRATA_DRAM_TIMING_READ)
#undef STRATA_DRAM_TIMING_READ

  const ValidatedNode& p = node.child("power");
  d.power = DramPower{p.params.quantity("VDD"),   p.params.quantity("IDD0"),  p.params.quantity("IDD2N"),
                      p.params.quantity("IDD3N"), p.params.quantity("IDD4R"), p.params.quantity("IDD4W"),
                      p.params.quantity("IDD5B")};

  const auto fail = [](const ValidatedNode& n, const char* key, const std::string& message) {
    throw InputError(n.params.where(key), n.path + "." + key, message);
  };
  // Address bits are sliced per field, so every field the mapping decodes is a power of two.
  for (const char* key : {"channels", "pseudo_channels", "ranks", "bank_groups", "banks_per_group", "rows"})
    if (!power_of_two(o.params.integer(key)))
      fail(o, key, fmt::format("{} is not a power of two (address fields are whole bits)", o.params.integer(key)));
  if (d.org.bus_width % d.org.device_width != 0)
    fail(o, "bus_width", fmt::format("{} bits is not a whole number of {}-bit devices", d.org.bus_width, d.org.device_width));
  if (d.org.bus_width % 8 != 0) fail(o, "bus_width", fmt::format("{} bits is not a whole number of bytes", d.org.bus_width));
  if (d.org.columns % d.org.burst_length != 0 || !power_of_two(d.org.bursts_per_row()))
    fail(o, "columns",
         fmt::format("{} columns are not a power-of-two number of bursts of {}", d.org.columns, d.org.burst_length));

  const DramTiming& x = d.timing;
  if (x.tBURST < 1) fail(t, "tBURST", "must be at least 1 cycle");
  if (x.tRC < x.tRAS + x.tRP)
    fail(t, "tRC", fmt::format("{} is less than tRAS + tRP = {} + {}", x.tRC, x.tRAS, x.tRP));
  if (x.tCCD_S < x.tBURST)
    fail(t, "tCCD_S", fmt::format("{} is shorter than a burst (tBURST = {}): data would collide", x.tCCD_S, x.tBURST));
  if (x.tCCD_L < x.tCCD_S) fail(t, "tCCD_L", fmt::format("{} is less than tCCD_S = {}", x.tCCD_L, x.tCCD_S));
  if (x.tRRD_L < x.tRRD_S) fail(t, "tRRD_L", fmt::format("{} is less than tRRD_S = {}", x.tRRD_L, x.tRRD_S));
  if (x.tREFI <= x.tRFC) fail(t, "tREFI", fmt::format("{} leaves no time between refreshes (tRFC = {})", x.tREFI, x.tRFC));
  if (x.tREFIpb > 0 && x.tRFCpb < 1) fail(t, "tRFCpb", "per-bank refresh (tREFIpb > 0) needs tRFCpb");
  if (x.tREFIpb > 0 && x.tREFIpb <= x.tRREFD)
    fail(t, "tREFIpb", fmt::format("{} is not longer than tRREFD = {}", x.tREFIpb, x.tRREFD));
  return d;
}

}  // namespace strata
