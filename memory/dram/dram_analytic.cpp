#include "memory/dram/dram_analytic.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace strata {

DramAnalytic::DramAnalytic(const DramSpec& spec, const ControllerConfig& controller, const AddressMapping& mapping)
    : org_(spec.org),
      timing_(spec.timing),
      tck_s_(spec.tck_s),
      separate_buses_(spec.separate_row_column_buses()),
      mapping_(mapping),
      open_row_(static_cast<std::size_t>(spec.org.controllers() * spec.org.ranks * spec.org.banks_per_rank()), -1),
      window_bursts_(static_cast<std::size_t>(spec.org.controllers()), 0),
      window_groups_(static_cast<std::size_t>(spec.org.controllers()), 0),
      queue_window_(controller.read_queue * static_cast<std::size_t>(spec.org.controllers())),
      short_cycles_(std::max(spec.timing.tBURST, spec.timing.tCCD_S)),
      long_cycles_(std::max(spec.timing.tBURST, spec.timing.tCCD_L)) {
  const DramOrganization& org = spec.org;
  const DramTiming& t = spec.timing;
  const std::uint64_t access = org.access_bytes();
  const std::uint64_t walk = std::min<std::uint64_t>(kWalkBursts, std::max<std::uint64_t>(1, org.capacity_bytes() / access));

  // One pass over the stream: per bank its open row (alone), per controller the page of its
  // last burst (interleaved), and controller 0's bank groups within one read queue of requests.
  const int banks_per_controller = org.ranks * org.banks_per_rank();
  std::vector<std::int64_t> open_row(static_cast<std::size_t>(org.controllers() * banks_per_controller), -1);
  std::vector<std::int64_t> last_page(static_cast<std::size_t>(org.controllers()), -1);
  std::set<int> groups;
  std::size_t queued = 0;
  double alone = 0, interleaved = 0;
  for (std::uint64_t b = 0; b < walk; ++b) {
    const DramAddress a = mapping.decode(b * access);
    const int bank = (a.rank * org.bank_groups + a.bank_group) * org.banks_per_group + a.bank;
    const auto flat = static_cast<std::size_t>(a.channel * banks_per_controller + bank);
    if (open_row[flat] != a.row) {
      open_row[flat] = a.row;
      alone += 1;
    }
    const std::int64_t page = static_cast<std::int64_t>(a.row) * banks_per_controller + bank;
    if (last_page[static_cast<std::size_t>(a.channel)] != page) {
      last_page[static_cast<std::size_t>(a.channel)] = page;
      interleaved += 1;
    }
    if (a.channel == 0 && queued < controller.read_queue) {
      groups.insert(a.bank_group);
      ++queued;
    }
    if (((b + 1) & b) == 0) {  // b + 1 is a power of two
      alone_.push_back(alone);
      interleaved_.push_back(interleaved);
    }
  }

  column_cycles_ = groups.size() > 1 ? short_cycles_ : long_cycles_;
  switch (controller.refresh) {
    case ControllerConfig::Refresh::AllBank:
      refresh_overhead_ = static_cast<double>(t.tRFC + t.tRPab) / t.tREFI;
      break;
    case ControllerConfig::Refresh::PerBank:
      refresh_overhead_ = static_cast<double>(t.tRFCpb) / t.tREFIpb / org.banks_per_rank();
      break;
    case ControllerConfig::Refresh::None: refresh_overhead_ = 0; break;
  }
  refresh_overhead_ = std::min(refresh_overhead_, 1.0);
  sustained_ = spec.peak_bandwidth() * t.tBURST / short_cycles_ * (1 - refresh_overhead_);
}

double DramAnalytic::activations(std::uint64_t bursts, bool interleaved) const {
  if (bursts == 0) return 0;
  const std::vector<double>& table = interleaved ? interleaved_ : alone_;
  const std::size_t last = table.size() - 1;
  const double top = std::ldexp(1.0, static_cast<int>(last));  // bursts the table's last entry covers
  const auto n = static_cast<double>(bursts);
  if (n >= top) return table[last] * n / top;
  // Between 2^j and 2^(j+1) bursts, linearly.
  const auto j = static_cast<std::size_t>(std::floor(std::log2(n)));
  const double lo = std::ldexp(1.0, static_cast<int>(j));
  return table[j] + (table[j + 1] - table[j]) * (n - lo) / lo;
}

double DramAnalytic::random_share(std::uint64_t bytes) const {
  const std::uint64_t access = org_.access_bytes();
  const double bursts = static_cast<double>(std::max<std::uint64_t>(1, (bytes + access - 1) / access));
  const double acts = std::max(1.0, activations(static_cast<std::uint64_t>(bursts), false));
  const double act_rate = org_.ranks * std::min({static_cast<double>(org_.banks_per_rank()) / timing_.tRC,
                                                4.0 / timing_.tFAW, 1.0 / timing_.tRRD_S});
  // Requests per cycle per controller: activations, column commands, and the command bus.
  // Random requests spread over bank groups: a burst per tCCD_S.
  double requests = std::min(act_rate / acts, 1.0 / (bursts * short_cycles_));
  if (!separate_buses_) requests = std::min(requests, 1.0 / (acts + bursts));
  const double bandwidth = requests * static_cast<double>(bytes) * org_.controllers() / tck_s_ * (1 - refresh_overhead_);
  return std::min(1.0, bandwidth / sustained_);
}

double DramAnalytic::bandwidth_share(std::uint64_t address, std::uint64_t rows, std::uint64_t row_bytes,
                                     std::uint64_t stride) {
  if (row_bytes == 0) return 1;
  if (stride == row_bytes) {  // one contiguous run
    row_bytes *= rows;
    rows = 1;
  }
  const std::uint64_t access = org_.access_bytes();
  const auto bursts_of = [&](std::uint64_t a) { return (a + row_bytes - 1) / access - a / access + 1; };
  if (rows == 1)
    return static_cast<double>(row_bytes) / static_cast<double>(bursts_of(address) * access) * short_cycles_ / column_cycles_;
  const auto controllers = static_cast<std::size_t>(org_.controllers());
  std::uint64_t walked = 0, payload = 0, in_window = 0;
  double time = 0, ideal = 0;  // command cycles of the windows walked, and of a stream's bursts
  const auto close_window = [&] {
    if (in_window == 0) return;
    // The busiest channel sets the window's time: a burst per tCCD_S when its bursts span bank
    // groups, per tCCD_L when they stay in one.
    double busiest = 0;
    for (std::size_t c = 0; c < controllers; ++c) {
      const bool spread = (window_groups_[c] & (window_groups_[c] - 1)) != 0;
      busiest = std::max(busiest, static_cast<double>(window_bursts_[c]) * (spread ? short_cycles_ : long_cycles_));
      window_bursts_[c] = 0;
      window_groups_[c] = 0;
    }
    time += busiest;
    ideal += static_cast<double>(in_window) * short_cycles_ / static_cast<double>(controllers);
    in_window = 0;
  };
  for (std::uint64_t r = 0; r < rows && walked < kSampleBursts; ++r) {
    const std::uint64_t a = address + r * stride;
    payload += row_bytes;
    for (std::uint64_t b = a / access, last = (a + row_bytes - 1) / access; b <= last; ++b, ++walked) {
      const DramAddress d = mapping_.decode(b * access);
      ++window_bursts_[static_cast<std::size_t>(d.channel)];
      window_groups_[static_cast<std::size_t>(d.channel)] |= 1u << (d.bank_group & 31);
      if (++in_window == queue_window_) close_window();
    }
  }
  close_window();
  return std::min(1.0, ideal / time) * static_cast<double>(payload) / static_cast<double>(walked * access);
}

double DramAnalytic::activations(std::uint64_t address, std::uint64_t rows, std::uint64_t row_bytes,
                                 std::uint64_t stride, bool interleaved) {
  if (stride == row_bytes) {  // one contiguous run
    row_bytes *= rows;
    rows = 1;
  }
  const std::uint64_t access = org_.access_bytes();
  const std::uint64_t row_bursts = (address % access + row_bytes + access - 1) / access;
  if (interleaved || rows == 1 || row_bursts >= kSampleBursts)
    return static_cast<double>(rows) * activations(row_bursts, interleaved);
  const std::uint64_t walked = std::min(rows, std::max<std::uint64_t>(1, kSampleBursts / row_bursts));
  const int banks_per_controller = org_.ranks * org_.banks_per_rank();
  double count = 0;
  for (std::uint64_t r = 0; r < walked; ++r) {
    const std::uint64_t first = (address + r * stride) / access, last = (address + r * stride + row_bytes - 1) / access;
    for (std::uint64_t b = first; b <= last; ++b) {
      const DramAddress a = mapping_.decode(b * access);
      const int bank = (a.rank * org_.bank_groups + a.bank_group) * org_.banks_per_group + a.bank;
      std::int64_t& open = open_row_[static_cast<std::size_t>(a.channel * banks_per_controller + bank)];
      if (open != a.row) {
        open = a.row;
        count += 1;
      }
    }
  }
  return count * static_cast<double>(rows) / static_cast<double>(walked);
}

}  // namespace strata
