// Optional timeline of a run in the Chrome trace event format (JSON), which Perfetto
// (ui.perfetto.dev) and chrome://tracing open. Events stream to disk as they happen; when the
// timeline is off every call returns at the first branch.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include <systemc>

#include "sim/reported_time.h"

namespace strata {

class Timeline {
 public:
  Timeline() = default;
  ~Timeline();
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  // Starts writing to `path`; at most `max_events` events are kept (the rest are counted as
  // dropped and reported in the file's metadata).
  void open(const std::string& path, std::uint64_t max_events);
  // Finishes the JSON document; false when anything could not be written (a full disk). Safe
  // to call twice.
  bool close();
  bool enabled() const { return file_ != nullptr; }
  // The run will write a timeline: it is opened only once the result folder exists, after
  // elaboration, so components that install tracing hooks while they are built ask this.
  void request() { requested_ = true; }
  bool requested() const { return requested_ || enabled(); }
  std::uint64_t events() const { return events_; }
  std::uint64_t dropped() const { return dropped_; }

  // A track (one row in the viewer) per name, created on first use.
  int track(const std::string& name);
  // Overlapping spans (requests in flight) as async begin/end pairs matched by `id`.
  void async_begin(int track, const char* name, std::uint64_t id, const sc_core::sc_time& t);
  void async_end(int track, const char* name, std::uint64_t id, const sc_core::sc_time& t);
  // A span that does not overlap others on its track (a tile on a compute unit).
  void span(int track, const std::string& name, const sc_core::sc_time& begin, const sc_core::sc_time& end);
  // The same with times already in reported time (an operator that sim.reuse repeated).
  void reported_span(int track, const std::string& name, const sc_core::sc_time& begin, const sc_core::sc_time& end);
  // Events are given in simulated time and written in reported time (sim/reported_time.h).
  void set_reported_time(const ReportedTime* time) { time_ = time; }
  // A counter's value from time `t` on (the power over a statistics window), its own track.
  void counter(const std::string& name, const std::string& unit, const sc_core::sc_time& t, double value);
  // A point event (a DRAM command) on `track`.
  void instant(int track, const std::string& name, const sc_core::sc_time& t);
  // The same with the name made only if the event is kept (past max_events it is only counted).
  template <class MakeName>
  void instant_named(int track, MakeName make_name, const sc_core::sc_time& t) {
    if (!file_ || !admit()) return;
    write_instant(track, make_name(), t);
  }

 private:
  sc_core::sc_time reported(const sc_core::sc_time& t) const { return time_ ? (*time_)(t) : t; }
  bool admit();
  void write_instant(int track, const std::string& name, const sc_core::sc_time& t);
  void emit_track(int id, const std::string& name);
  std::FILE* file_ = nullptr;
  std::uint64_t max_events_ = 0, events_ = 0, dropped_ = 0;
  std::map<std::string, int> tracks_;
  const ReportedTime* time_ = nullptr;
  bool requested_ = false;
};

}  // namespace strata
