#include "sim/timeline.h"

#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/results_writer.h"

namespace strata {
namespace {
// Trace timestamps are in microseconds; SystemC time is in femtoseconds.
double to_us(const sc_core::sc_time& t) { return static_cast<double>(t.value()) * 1e-9; }
}  // namespace

Timeline::~Timeline() { close(); }

void Timeline::open(const std::string& path, std::uint64_t max_events) {
  close();
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) throw OutputError("cannot write timeline " + path);
  max_events_ = max_events;
  events_ = dropped_ = 0;
  std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", file_);
  std::fputs(R"({"ph":"M","pid":1,"name":"process_name","args":{"name":"strata"}})", file_);
  // Tracks made before the file was opened (at elaboration), in the order they were made.
  std::vector<const std::string*> by_id(tracks_.size());
  for (const auto& [name, id] : tracks_) by_id[static_cast<size_t>(id - 1)] = &name;
  for (size_t i = 0; i < by_id.size(); ++i) emit_track(static_cast<int>(i + 1), *by_id[i]);
}

void Timeline::emit_track(int id, const std::string& name) {
  fmt::print(file_, ",\n{{\"ph\":\"M\",\"pid\":1,\"tid\":{},\"name\":\"thread_name\",\"args\":{{\"name\":{}}}}}", id,
             nlohmann::json(name).dump());
}

bool Timeline::close() {
  if (!file_) return true;
  fmt::print(file_, "\n],\"metadata\":{{\"events\":{},\"dropped_events\":{}}}}}\n", events_, dropped_);
  const bool ok = std::ferror(file_) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  return ok && closed;
}

int Timeline::track(const std::string& name) {
  auto it = tracks_.find(name);
  if (it != tracks_.end()) return it->second;
  const int id = static_cast<int>(tracks_.size()) + 1;
  tracks_.emplace(name, id);
  if (file_) emit_track(id, name);
  return id;
}

bool Timeline::admit() {
  if (events_ >= max_events_) {
    ++dropped_;
    return false;
  }
  ++events_;
  return true;
}

void Timeline::async_begin(int track, const char* name, std::uint64_t id, const sc_core::sc_time& t) {
  if (!file_ || !admit()) return;
  fmt::print(file_, ",\n{{\"ph\":\"b\",\"cat\":\"{}\",\"pid\":1,\"tid\":{},\"name\":\"{}\",\"id\":{},\"ts\":{:.6f}}}",
             name, track, name, id, to_us(reported(t)));
}

void Timeline::async_end(int track, const char* name, std::uint64_t id, const sc_core::sc_time& t) {
  if (!file_ || !admit()) return;
  fmt::print(file_, ",\n{{\"ph\":\"e\",\"cat\":\"{}\",\"pid\":1,\"tid\":{},\"name\":\"{}\",\"id\":{},\"ts\":{:.6f}}}",
             name, track, name, id, to_us(reported(t)));
}

void Timeline::span(int track, const std::string& name, const sc_core::sc_time& begin, const sc_core::sc_time& end) {
  if (!file_) return;
  reported_span(track, name, reported(begin), reported(end));
}

void Timeline::reported_span(int track, const std::string& name, const sc_core::sc_time& begin,
                             const sc_core::sc_time& end) {
  if (!file_ || !admit()) return;
  fmt::print(file_, ",\n{{\"ph\":\"X\",\"pid\":1,\"tid\":{},\"name\":\"{}\",\"ts\":{:.6f},\"dur\":{:.6f}}}", track, name,
             to_us(begin), to_us(end) - to_us(begin));
}

void Timeline::counter(const std::string& name, const std::string& unit, const sc_core::sc_time& t, double value) {
  if (!file_ || !admit()) return;
  fmt::print(file_, ",\n{{\"ph\":\"C\",\"pid\":1,\"name\":\"{}\",\"ts\":{:.6f},\"args\":{{\"{}\":{:.6g}}}}}", name,
             to_us(reported(t)), unit, value);
}

void Timeline::instant(int track, const std::string& name, const sc_core::sc_time& t) {
  if (!file_ || !admit()) return;
  write_instant(track, name, t);
}

void Timeline::write_instant(int track, const std::string& name, const sc_core::sc_time& t) {
  fmt::print(file_, ",\n{{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":{},\"name\":\"{}\",\"ts\":{:.6f}}}", track, name,
             to_us(reported(t)));
}

}  // namespace strata
