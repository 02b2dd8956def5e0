// The controller's wake-up contract (channel_controller.h): stepping it only at the cycles
// step() returns, and when a request arrives that enqueue() says may change the schedule
// (Enqueued::Step), must issue exactly the commands, at exactly the cycles, that stepping it at
// every cycle issues. A wake-up that comes too late would delay a
// command; this compares the two command traces for every standard, page policy, scheduler and
// refresh mode on random reads and writes that arrive in bursts with idle gaps.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>

#include "dram_test_util.h"

namespace strata {
namespace {

using testing::ControllerHarness;
using testing::dram_presets;
using testing::load_dram_preset;

struct Arrival {
  std::uint64_t cycle;
  DramAddress a;
  bool write;
};

// Requests arriving over time: groups of back-to-back requests, then a gap (sometimes long
// enough for refreshes while the channel is parked), over a span small enough that rows hit,
// miss and conflict.
std::vector<Arrival> arrivals(const testing::DramPreset& p, std::uint64_t seed, int n) {
  const AddressMapping map(p.mapping, p.spec.org);
  std::mt19937_64 rng(seed);
  std::vector<Arrival> out;
  std::uint64_t t = 0;
  while (static_cast<int>(out.size()) < n) {
    DramAddress a = map.decode(rng() % (1u << 20) * p.spec.org.access_bytes());
    a.channel = 0;
    out.push_back({t, a, rng() % 3 == 0});
    if (rng() % 64 == 0) t += rng() % 2 == 0 ? rng() % 200 : 3 * static_cast<std::uint64_t>(p.spec.timing.tREFI);
    else t += rng() % 3;
  }
  return out;
}

// Runs the arrivals through a controller (a request that finds its queue full waits, in order,
// and enters when a step makes room), stepping every cycle or only at its wake-ups; returns the
// command trace and the completions.
std::vector<std::string> run(const testing::DramPreset& p, const std::vector<Arrival>& in, bool every_cycle) {
  ControllerHarness h(p.spec, p.controller, true);
  std::vector<std::string> trace;
  h.ctrl().observe([&](const DramCommand& c) {
    trace.push_back(
        fmt::format("{} {} r{} g{} b{} row{}", c.cycle, static_cast<int>(c.cmd), c.rank, c.bank_group, c.bank, c.row));
  });
  std::vector<ChannelController::Completion> done;
  std::size_t next_in = 0;
  std::uint64_t now = 0, wake = ChannelController::kIdle;
  while (next_in < in.size() || !h.ctrl().idle()) {
    if (now > 50'000'000) {
      ADD_FAILURE() << "no progress";
      break;
    }
    bool entered = false;
    while (next_in < in.size() && in[next_in].cycle <= now && h.ctrl().room(in[next_in].write) > 0) {
      const Arrival& r = in[next_in];
      entered |= h.ctrl().enqueue(next_in++, r.a, r.write, now) == ChannelController::Enqueued::Step;
    }
    if (every_cycle || entered || now == wake) {
      done.clear();
      wake = h.ctrl().step(now, done);
      for (const auto& c : done) trace.push_back(fmt::format("done {} at {}", c.tag, c.cycle));
    }
    if (every_cycle) {
      ++now;
      continue;
    }
    // The next cycle anything can happen: the wake-up, or the next request entering (at its
    // arrival, or the cycle after a step that may have made room).
    std::uint64_t t = wake;
    if (next_in < in.size()) {
      const std::uint64_t arrive = std::max(in[next_in].cycle, now + 1);
      if (h.ctrl().room(in[next_in].write) > 0) t = std::min(t, arrive);  // else a step makes room
    }
    if (t == ChannelController::kIdle) break;
    now = std::max(t, now + 1);
  }
  std::uint64_t end = now;
  h.drain(end, done, end + 10'000'000);
  EXPECT_EQ(h.ctrl().violation(), "");
  return trace;
}

// The two traces are the same, entry by entry (the first difference is shown with the entries
// around it).
void expect_same(const std::vector<std::string>& every, const std::vector<std::string>& woken) {
  for (std::size_t i = 0; i < std::min(every.size(), woken.size()); ++i)
    ASSERT_EQ(every[i], woken[i]) << "entry " << i << [&] {
      std::string ctx;
      for (std::size_t j = i >= 12 ? i - 12 : 0; j < std::min(i + 4, every.size()); ++j)
        ctx += "\n  " + every[j] + "    |    " + (j < woken.size() ? woken[j] : "");
      return ctx;
    }();
  ASSERT_EQ(every.size(), woken.size());
}

TEST(DramWakeups, SteppingAtWakeUpsIssuesWhatSteppingEveryCycleIssues) {
  for (const std::string& name : dram_presets()) {
    for (const char* scheduler : {"frfcfs", "fcfs"}) {
      for (const char* page : {"open", "closed", "adaptive"}) {
        for (const char* refresh : {"all_bank", "per_bank"}) {
          if (name == "ddr4-3200" && std::string(refresh) == "per_bank") continue;  // DDR4 has none
          SCOPED_TRACE(name + " " + scheduler + " " + page + " " + refresh);
          auto p = load_dram_preset(
              name,
              {std::string("controller.scheduler=") + scheduler, std::string("controller.page_policy=") + page,
               std::string("controller.refresh=") + refresh, "controller.read_queue=16", "controller.write_queue=16"});
          const auto in = arrivals(*p, 11, 3000);
          const auto every = run(*p, in, true);
          const auto woken = run(*p, in, false);
          ASSERT_GT(every.size(), 6000u);
          expect_same(every, woken);
        }
      }
    }
  }
}

// A channel whose first request comes late (one of a GPU's many HBM channels under a pointer
// chase) has refreshed all along, as one stepped from cycle 0 has: it used to owe every refresh
// since the start and issue them back to back ahead of that request.
TEST(DramWakeups, AChannelFirstUsedLateHasRefreshedAllAlong) {
  for (const std::string& name : dram_presets()) {
    for (const char* refresh : {"all_bank", "per_bank"}) {
      if (name == "ddr4-3200" && std::string(refresh) == "per_bank") continue;
      SCOPED_TRACE(name + " " + refresh);
      auto p = load_dram_preset(name, {std::string("controller.refresh=") + refresh});
      auto in = arrivals(*p, 5, 200);
      for (Arrival& a : in) a.cycle += 7 * static_cast<std::uint64_t>(p->spec.timing.tREFI) + 13;
      const auto every = run(*p, in, true);
      const auto woken = run(*p, in, false);
      // Refreshes before the first request, at their own cycles.
      ASSERT_NE(every.front().rfind("0 ", 0), 0u);
      expect_same(every, woken);
    }
  }
}

}  // namespace
}  // namespace strata
