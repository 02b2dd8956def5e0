#include "rtl/stimulus_file.h"

#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "sim/results_writer.h"
#include "sim/text.h"

namespace strata {
namespace {

const StreamDecl* find(const std::vector<StreamDecl>& streams, const std::string& name) {
  for (const StreamDecl& d : streams)
    if (d.name == name) return &d;
  return nullptr;
}

int nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(c | 0x20);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

std::string pack_hex(const Beat& beat, const StreamDecl& d) {
  const int width = d.width();
  std::vector<bool> bits(static_cast<size_t>(width), false);
  for (int e = 0; e < d.elements; ++e) {
    const auto u = static_cast<std::uint64_t>(e < static_cast<int>(beat.elems.size()) ? beat.elems[static_cast<size_t>(e)] : 0);
    for (int b = 0; b < d.element_bits; ++b) bits[static_cast<size_t>(e * d.element_bits + b)] = b < 64 && ((u >> b) & 1);
  }
  std::string hex;
  for (int digit = (width + 3) / 4 - 1; digit >= 0; --digit) {
    int v = 0;
    for (int b = 3; b >= 0; --b) {
      const int i = digit * 4 + b;
      v = v * 2 + (i < width && bits[static_cast<size_t>(i)] ? 1 : 0);
    }
    hex += "0123456789abcdef"[v];
  }
  return hex;
}

Beat unpack_hex(const std::string& hex, const StreamDecl& d, bool last) {
  std::vector<bool> bits(static_cast<size_t>(hex.size()) * 4, false);
  for (size_t i = 0; i < hex.size(); ++i) {
    const int v = nibble(hex[hex.size() - 1 - i]);
    if (v < 0) throw std::invalid_argument(fmt::format("\"{}\" is not hexadecimal", hex));
    for (int b = 0; b < 4; ++b) bits[i * 4 + static_cast<size_t>(b)] = (v >> b) & 1;
  }
  Beat beat;
  beat.last = last;
  for (int e = 0; e < d.elements; ++e) {
    std::uint64_t u = 0;
    for (int b = 0; b < d.element_bits && b < 64; ++b) {
      const size_t i = static_cast<size_t>(e * d.element_bits + b);
      if (i < bits.size() && bits[i]) u |= 1ull << b;
    }
    beat.elems.push_back(wrap_to(static_cast<std::int64_t>(u), d.element_bits, d.is_signed));
  }
  return beat;
}

void write_stimulus(const std::string& path, const Stimulus& s, const std::vector<StreamDecl>& streams) {
  std::string out = "# strata rtl stimulus: offer STREAM CYCLE LAST HEX | stall STREAM CYCLE\n";
  for (const StreamDecl& d : streams) {
    if (d.input) {
      auto it = s.offers.find(d.name);
      if (it == s.offers.end()) continue;
      for (const Offer& o : it->second) out += fmt::format("offer {} {} {} {}\n", d.name, o.cycle, o.beat.last ? 1 : 0, pack_hex(o.beat, d));
    } else if (auto it = s.stalls.find(d.name); it != s.stalls.end()) {
      for (std::uint64_t c : it->second) out += fmt::format("stall {} {}\n", d.name, c);
    }
  }
  write_file_atomic(path, out);
}

Stimulus read_stimulus(const std::string& path, const std::vector<StreamDecl>& streams) {
  std::ifstream in(path);
  if (!in) throw InputError(SourceLoc{path}, "", "cannot open");
  Stimulus s;
  std::string line;
  int n = 0;
  while (read_line(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string what, name;
    ls >> what >> name;
    const StreamDecl* d = find(streams, name);
    const SourceLoc loc{path, n, 1};
    if (!d) throw InputError(loc, "", fmt::format("unknown stream '{}'", name));
    std::uint64_t cycle = 0;
    if (what == "offer") {
      int last = 0;
      std::string hex;
      if (!(ls >> cycle >> last >> hex) || !d->input) throw InputError(loc, "", "expected: offer INPUT_STREAM CYCLE LAST HEX");
      try {
        s.offers[name].push_back(Offer{cycle, unpack_hex(hex, *d, last != 0)});
      } catch (const std::invalid_argument& e) {
        throw InputError(loc, "", e.what());
      }
    } else if (what == "stall") {
      if (!(ls >> cycle) || d->input) throw InputError(loc, "", "expected: stall OUTPUT_STREAM CYCLE");
      s.stalls[name].insert(cycle);
    } else {
      throw InputError(loc, "", fmt::format("unknown line kind '{}' (expected offer or stall)", what));
    }
  }
  return s;
}

void write_events(const std::string& path, const std::vector<Fire>& fires, const std::vector<StreamDecl>& streams) {
  std::string out;
  for (const Fire& f : fires) out += fmt::format("fire {} {} {} {}\n", f.stream, f.cycle, f.beat.last ? 1 : 0, pack_hex(f.beat, *find(streams, f.stream)));
  write_file_atomic(path, out);
}

std::vector<Fire> read_events(const std::string& path, const std::vector<StreamDecl>& streams) {
  std::ifstream in(path);
  std::vector<Fire> fires;
  std::map<std::string, std::size_t> index;
  std::string line;
  while (read_line(in, line)) {
    std::istringstream ls(line);
    std::string what, name, hex;
    std::uint64_t cycle = 0;
    int last = 0;
    ls >> what;
    if (what != "fire") continue;
    ls >> name >> cycle >> last >> hex;
    const StreamDecl* d = find(streams, name);
    if (!d) continue;
    fires.push_back(Fire{cycle, name, index[name]++, unpack_hex(hex, *d, last != 0)});
  }
  return fires;
}

}  // namespace strata
