// A DRAM standard as data: organisation, timing and IDD currents, read from the `organization`,
// `timing` and `power` sections of a `dram` hardware node. Presets with every value and its
// source live in configs/hardware/memory/; any value can be overridden with `--set`.
//
// All timings are in cycles of the command clock (tCK, the node's `clock`), as JEDEC tables and
// the peer simulators' presets state them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "memory/dram/dram_protocol.h"
#include "memory/dram/dram_timing.h"
#include "sim/schema.h"

namespace strata {

// The command rules that differ between families: HBM has separate row and column command
// buses; DDR4 has no per-bank refresh. GDDR6 (one command bus, as DDR) is here for the PIM
// devices built on it (SK hynix AiM).
enum class DramFamily { DDR4, DDR5, LPDDR5, HBM2, HBM2E, HBM3, GDDR6 };

struct DramOrganization {
  int channels = 1;
  int pseudo_channels = 1;  // per channel; each is scheduled by its own controller
  int ranks = 1;            // per (pseudo-)channel; HBM stack IDs count as ranks
  int bank_groups = 1;
  int banks_per_group = 1;
  std::int64_t rows = 0;
  int columns = 0;       // per row, in device-width words
  int device_width = 0;  // bits per device (x4/x8/x16; the whole pseudo-channel for HBM)
  int bus_width = 0;     // data bits per (pseudo-)channel
  int burst_length = 0;  // beats per column access

  int banks_per_rank() const { return bank_groups * banks_per_group; }
  int devices_per_rank() const { return bus_width / device_width; }
  int controllers() const { return channels * pseudo_channels; }
  std::uint32_t access_bytes() const { return static_cast<std::uint32_t>(bus_width / 8 * burst_length); }
  int bursts_per_row() const { return columns / burst_length; }
  std::uint64_t row_bytes() const { return static_cast<std::uint64_t>(bursts_per_row()) * access_bytes(); }
  std::uint64_t capacity_bytes() const;
};

// IDD currents per device in amperes and VDD in volts (JEDEC IDD measurement conditions).
struct DramPower {
  double vdd = 0;
  double idd0 = 0;   // one bank activate-precharge cycling at tRC
  double idd2n = 0;  // precharged standby
  double idd3n = 0;  // active standby (a bank open)
  double idd4r = 0;  // burst read
  double idd4w = 0;  // burst write
  double idd5b = 0;  // burst refresh
};

struct DramSpec {
  DramFamily family = DramFamily::DDR4;
  std::string standard;  // as written in the config, e.g. "DDR4"
  double tck_s = 0;      // command clock period
  DramOrganization org;
  DramTiming timing;
  DramPower power;

  // What a device adds to the standard command set and rules (a PIM device's commands); unset
  // for a plain DRAM.
  std::function<void(DramProtocol& protocol, const DramSpec& spec)> extend_protocol;
  // The device's commands and timing rules: the standard ones with `timing`'s values, extended.
  DramProtocol protocol() const;
  // State rules of the device beyond timing and bank state (a PIM device's modes): each protocol
  // checker makes its own rule checker from this and asks it about every command, after the
  // standard checks; it returns the violated rule as one line, or "". Unset for a plain DRAM.
  std::function<std::function<std::string(const DramCommand&)>()> device_state_rules;

  bool separate_row_column_buses() const;
  bool has_per_bank_refresh() const { return timing.tREFIpb > 0; }
  // Peak data bandwidth of all (pseudo-)channels in bytes per second.
  double peak_bandwidth() const;

  // The sections of a `dram` node (used by the dram kind's schema).
  static const KindSpec& organization_spec();
  static const KindSpec& timing_spec();
  static const KindSpec& power_spec();
  // Reads and cross-checks the `standard` parameter and the three sections of `node`; throws
  // InputError naming the key for values that contradict each other (tRC < tRAS + tRP, a bus
  // not a multiple of the device width, ...).
  static DramSpec from_config(const ValidatedNode& node, double clock_hz);
};

const char* family_name(DramFamily f);

}  // namespace strata
