#include "accelerators/gpu/accelsim_trace.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "sim/input_file.h"
#include "sim/text.h"

namespace strata {

namespace {

constexpr const char* kKey = "workload.path";
// One pointer per warp of the grid is kept, traced or not: a grid past this is refused rather
// than left to exhaust memory.
constexpr std::uint64_t kMaxGridWarps = std::uint64_t{1} << 24;

struct Token {
  std::string_view text;
  int column = 0;  // 1-based
};

std::vector<Token> split_fields(std::string_view line) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) out.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return out;
}

bool parse_unsigned(std::string_view t, std::uint64_t& v, int base = 10) {
  if (base == 16 && t.size() >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.remove_prefix(2);
  if (t.empty()) return false;
  const auto [p, e] = std::from_chars(t.data(), t.data() + t.size(), v, base);
  return e == std::errc() && p == t.data() + t.size();
}

bool parse_signed(std::string_view t, std::int64_t& v) {
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  if (t.empty()) return false;
  const auto [p, e] = std::from_chars(t.data(), t.data() + t.size(), v);
  return e == std::errc() && p == t.data() + t.size();
}

bool all_digits(std::string_view t) {
  return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// ---- SASS opcodes -------------------------------------------------------------------------

// The class of an opcode's base name (the text before its first '.'); names not listed take an
// issue slot and nothing else (Nop). Accel-Sim's ALU_OP group (moves, conversions, selects)
// has no pipe of its own in Strata and goes to the INT32 pipe; the uniform datapath (U*) is
// not modelled and issues as Nop.
WarpOp base_class(std::string_view base) {
  static const std::unordered_map<std::string_view, WarpOp> table = [] {
    std::unordered_map<std::string_view, WarpOp> t;
    for (const char* n : {"FADD",  "FADD32I",   "FCHK",  "FFMA",    "FFMA32I", "FMNMX",     "FMUL",  "FMUL32I",
                          "FSEL",  "FSET",      "FSETP", "FSWZADD", "HADD2",   "HADD2_32I", "HFMA2", "HFMA2_32I",
                          "HMUL2", "HMUL2_32I", "HSET2", "HSETP2",  "HMNMX2",  "FADD2",     "FFMA2", "FMUL2"})
      t[n] = WarpOp::Fp32;
    for (const char* n :
         {"BMSK",  "BREV",      "FLO",    "IABS",    "IADD",    "IADD3",  "IADD32I",   "IDP",      "IDP4A",
          "IMAD",  "IMAD32I",   "IMNMX",  "IMUL",    "IMUL32I", "ISCADD", "ISCADD32I", "ISETP",    "LEA",
          "LOP",   "LOP3",      "LOP32I", "POPC",    "SHF",     "SHL",    "SHR",       "VABSDIFF", "VABSDIFF4",
          "VIADD", "VIADDMNMX", "VIMNMX", "VIMNMX3", "F2F",     "F2FP",   "F2I",       "F2IP",     "FRND",
          "I2F",   "I2FP",      "I2I",    "I2IP",    "MOV",     "MOV32I", "MOVM",      "PRMT",     "SEL",
          "SGXT",  "SHFL",      "PLOP3",  "PSETP",   "P2R",     "R2P",    "BMMA"})
      t[n] = WarpOp::Int;
    for (const char* n : {"DADD", "DFMA", "DMUL", "DSETP", "DMNMX", "DMMA"}) t[n] = WarpOp::Fp64;
    t["MUFU"] = WarpOp::Sfu;
    for (const char* n : {"LDS", "LDSM", "ATOMS"}) t[n] = WarpOp::Lds;
    t["STS"] = WarpOp::Sts;
    for (const char* n : {"LDG", "LDL", "LD", "ATOM", "ATOMG"}) t[n] = WarpOp::Ldg;
    // cp.async: the copy (its addresses are the global ones), the group's commit, and the
    // wait (DEPBAR.LE SB0, n; a DEPBAR in a warp without groups waits for nothing).
    t["LDGSTS"] = WarpOp::CpAsync;
    t["LDGDEPBAR"] = WarpOp::CpAsyncCommit;
    t["DEPBAR"] = WarpOp::CpAsyncWait;
    for (const char* n : {"STG", "STL", "ST", "RED"}) t[n] = WarpOp::Stg;
    return t;
  }();
  const auto it = table.find(base);
  return it == table.end() ? WarpOp::Nop : it->second;
}

// The operand format a tensor opcode names among its tokens (the accumulator's F32/F16/S32
// say nothing about it), or `fallback`.
std::string tensor_format(const std::vector<std::string_view>& tokens, const char* fallback) {
  static const std::map<std::string_view, const char*> names = {
      {"BF16", "bf16"}, {"TF32", "tf32"}, {"E4M3", "fp8_e4m3"}, {"E5M2", "fp8_e5m2"},
      {"S8", "int8"},   {"U8", "int8"},   {"S4", "int4"},       {"U4", "int4"}};
  for (std::size_t i = 1; i < tokens.size(); ++i)
    if (const auto it = names.find(tokens[i]); it != names.end()) return it->second;
  return fallback;
}

// mma.sync shapes are written as digits, M N K run together: 16816 is m16n8k16, 884 m8n8k4,
// 88128 m8n8k128. M is 16 or 8 and N is 8 in every shape SASS has.
bool mma_shape(std::string_view digits, WarpInstruction& in) {
  std::uint64_t m = 0;
  if (digits.rfind("16", 0) == 0) m = 16;
  else if (digits.rfind('8', 0) == 0) m = 8;
  else return false;
  digits.remove_prefix(m == 16 ? 2 : 1);
  if (digits.empty() || digits[0] != '8') return false;
  digits.remove_prefix(1);
  std::uint64_t k = 0;
  if (!parse_unsigned(digits, k) || k == 0 || k > 4096) return false;
  in.m = static_cast<std::uint16_t>(m);
  in.n = 8;
  in.k = static_cast<std::uint16_t>(k);
  return true;
}

// wgmma shapes are written MxNxK: 64x128x16.
bool wgmma_shape(std::string_view t, WarpInstruction& in) {
  std::array<std::uint64_t, 3> v{};
  for (std::size_t i = 0; i < 3; ++i) {
    const std::size_t x = i < 2 ? t.find('x') : t.size();
    if (x == std::string_view::npos || !parse_unsigned(t.substr(0, x), v[i]) || v[i] == 0 || v[i] > 4096) return false;
    t.remove_prefix(std::min(t.size(), x + 1));
  }
  in.m = static_cast<std::uint16_t>(v[0]);
  in.n = static_cast<std::uint16_t>(v[1]);
  in.k = static_cast<std::uint16_t>(v[2]);
  return true;
}

}  // namespace

void classify_sass_opcode(const std::string& opcode, WarpInstruction& in, std::string& format) {
  std::vector<std::string_view> tokens;
  for (std::string_view rest = opcode; !rest.empty();) {
    const std::size_t dot = rest.find('.');
    if (dot != 0) tokens.push_back(rest.substr(0, dot));
    if (dot == std::string_view::npos) break;
    rest.remove_prefix(dot + 1);
  }
  if (tokens.empty()) throw std::invalid_argument(fmt::format("\"{}\" is not an opcode", opcode));
  const std::string_view base = tokens[0];
  const auto has = [&](std::string_view t) { return std::find(tokens.begin() + 1, tokens.end(), t) != tokens.end(); };
  format.clear();
  if (base == "HMMA" || base == "IMMA") {
    in.op = WarpOp::Mma;
    const auto shape = std::find_if(tokens.begin() + 1, tokens.end(), all_digits);
    if (shape == tokens.end() || !mma_shape(*shape, in))
      throw std::invalid_argument(fmt::format("{}: no mma shape such as .16816 (m16n8k16) in the opcode", opcode));
    format = tensor_format(tokens, base == "IMMA" ? "int8" : "fp16");
    in.sparse = has("SP");
  } else if (base == "HGMMA" || base == "IGMMA" || base == "QGMMA") {
    in.op = WarpOp::Wgmma;
    const auto shape = std::find_if(tokens.begin() + 1, tokens.end(),
                                    [](std::string_view t) { return t.find('x') != std::string_view::npos; });
    if (shape == tokens.end() || !wgmma_shape(*shape, in))
      throw std::invalid_argument(fmt::format("{}: no wgmma shape such as .64x128x16 in the opcode", opcode));
    format = tensor_format(tokens, base == "IGMMA" ? "int8" : base == "QGMMA" ? "fp8_e4m3" : "fp16");
    in.sparse = has("SP");
  } else if (base == "WARPGROUP") {
    in.op = has("DEPBAR") ? WarpOp::WgmmaWait : WarpOp::Nop;  // WARPGROUP.ARRIVE only orders registers
  } else if (base == "BAR") {
    in.op = has("ARV") ? WarpOp::Nop : WarpOp::Bar;  // BAR.ARV arrives without waiting
  } else {
    in.op = base_class(base);
  }
}

namespace {

// The affine form (base + lane * lane_stride) when every active lane fits one, else the 32
// addresses appended to the program's pool as a gather.
void place_addresses(WarpInstruction& in, const std::array<std::uint64_t, 32>& addr, WarpProgram& p) {
  std::vector<int> active;
  for (int l = 0; l < 32; ++l)
    if (in.active_mask >> l & 1u) active.push_back(l);
  const auto at = [&](int lane) { return addr[static_cast<std::size_t>(lane)]; };
  in.lane_stride = 0;
  in.base = active.empty() ? 0 : at(active[0]);
  if (active.size() < 2) return;
  // The stride from the first two active lanes; the base may wrap below 0, as lane 0's address
  // is never used when lane 0 is inactive.
  const int a = active[0], b = active[1];
  const auto diff = static_cast<std::int64_t>(at(b) - at(a));
  const std::int64_t stride = diff / (b - a);
  const std::uint64_t base = at(a) - static_cast<std::uint64_t>(stride) * static_cast<std::uint64_t>(a);
  bool affine = diff % (b - a) == 0 && stride >= std::numeric_limits<std::int32_t>::min() &&
                stride <= std::numeric_limits<std::int32_t>::max();
  for (int l : active)
    affine = affine && base + static_cast<std::uint64_t>(stride) * static_cast<std::uint64_t>(l) == at(l);
  if (affine) {
    in.base = base;
    in.lane_stride = static_cast<std::int32_t>(stride);
    return;
  }
  in.base = 0;
  in.lane_addresses = static_cast<std::int32_t>(p.addresses.size() / 32);
  for (int l = 0; l < 32; ++l) p.addresses.push_back(in.active_mask >> l & 1u ? at(l) : 0);
}

// ---- one kernel file ----------------------------------------------------------------------

struct Header {
  std::string name;
  std::optional<std::uint64_t> id, shmem, nregs, stream, version;
  std::optional<std::array<std::uint32_t, 3>> grid, block;
  std::uint64_t shmem_base = 0, local_base = 0;
  bool lineinfo = false;
};

class KernelReader {
 public:
  // `from`: the kernel list's line that names the file.
  KernelReader(const std::string& path, AccelSimCommand& out, const SourceLoc& from) : path_(path), out_(out) {
    open_input_file(in_, path, "the kernel trace " + path, from, kKey);
  }
  void read();

 private:
  [[noreturn]] void fail(int column, const std::string& message) const {
    throw InputError(SourceLoc{path_, line_, column}, kKey, message);
  }
  [[noreturn]] void fail(const Token& t, const std::string& message) const { fail(t.column, message); }
  void header_line(std::string_view text);
  void start_kernel();
  void thread_block_line(const std::vector<Token>& f, std::string_view text);
  void finish_warp();
  // The fields of one instruction line, taken in order.
  struct Fields {
    const std::vector<Token>& tokens;
    std::size_t at = 0;
  };
  const Token& next(Fields& fs, const char* what) const;
  // A count and that many registers, the first `n_slots` real ones kept in `slots`.
  void registers(Fields& fs, const char* what, std::uint8_t* slots, std::size_t n_slots) const;
  // The active lanes' addresses in any of the three formats; 0 for inactive lanes.
  std::array<std::uint64_t, 32> addresses(Fields& fs, std::uint32_t mask) const;
  void memory_access(WarpInstruction& in, std::string_view opcode, std::uint8_t width,
                     const std::array<std::uint64_t, 32>& addr);
  void instruction(const std::vector<Token>& tokens);
  // The "= value" part of "name = value" lines, from the token after `name`'s words.
  std::string_view value_after_equals(std::string_view text, int& column) const;
  std::uint64_t number(const Token& t, const char* what, int base = 10) const;
  std::uint8_t register_of(const Token& t) const;  // kNoReg for RZ and non-R operands

  std::string path_;
  std::ifstream in_;
  AccelSimCommand& out_;
  int line_ = 0;
  Header h_;
  bool started_ = false;  // past the header
  std::uint32_t warps_per_cta_ = 0;

  // The thread block and warp being read.
  int tb_line_ = 0;  // its #BEGIN_TB, 0 outside one
  std::optional<std::uint64_t> cta_;
  std::array<std::uint32_t, 3> tb_{};
  std::map<std::uint64_t, int> tb_first_line_;
  std::shared_ptr<WarpProgram> warp_;
  std::uint32_t warp_id_ = 0;
  int warp_line_ = 0, insts_line_ = 0;
  std::uint64_t expected_ = 0;
};

std::string_view KernelReader::value_after_equals(std::string_view text, int& column) const {
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) fail(1, fmt::format("expected \"name = value\", got \"{}\"", text));
  std::size_t start = eq + 1;
  while (start < text.size() && (text[start] == ' ' || text[start] == '\t')) ++start;
  column = static_cast<int>(start) + 1;
  return trim(text.substr(eq + 1));
}

std::uint64_t KernelReader::number(const Token& t, const char* what, int base) const {
  std::uint64_t v = 0;
  if (!parse_unsigned(t.text, v, base))
    fail(t, fmt::format("expected {} ({}), got \"{}\"", what, base == 16 ? "hexadecimal" : "decimal", t.text));
  return v;
}

std::uint8_t KernelReader::register_of(const Token& t) const {
  const std::string_view r = t.text;
  if (r == "RZ" || r == "URZ" || r == "PT" || r == "UPT") return kNoReg;
  std::uint64_t n = 0;
  if (r.size() > 1 && r[0] == 'R' && parse_unsigned(r.substr(1), n) && n <= 255) return static_cast<std::uint8_t>(n);
  // Predicates and uniform registers are not tracked by the SM model.
  for (std::string_view prefix : {"UR", "UP", "P"})
    if (r.rfind(prefix, 0) == 0 && parse_unsigned(r.substr(prefix.size()), n)) return kNoReg;
  fail(t, fmt::format("expected a register such as R12 (R0 to R255), got \"{}\"", r));
}

void KernelReader::header_line(std::string_view text) {
  if (started_) fail(1, "a header line (-name = value) after the first #BEGIN_TB");
  int column = 0;
  const std::string_view value = value_after_equals(text, column);
  const std::string name(trim(text.substr(1, text.find('=') - 1)));
  const Token v{value, column};
  const auto once = [&](bool seen) {
    if (seen) fail(1, fmt::format("-{} is given twice", name));
  };
  const auto dims = [&](std::optional<std::array<std::uint32_t, 3>>& d) {
    once(d.has_value());
    std::array<std::uint32_t, 3> xyz{};
    const auto parts = value.size() >= 2 && value.front() == '(' && value.back() == ')'
                           ? split(value.substr(1, value.size() - 2), ',')
                           : std::vector<std::string>{};
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < 3; ++i) {
      if (parts.size() != 3 || !parse_unsigned(trim(parts[i]), n) || n == 0 || n > 0x7fffffffu)
        fail(v, fmt::format("expected -{} = (x,y,z) with x, y and z from 1 to 2^31-1, got \"{}\"", name, value));
      xyz[i] = static_cast<std::uint32_t>(n);
    }
    d = xyz;
  };
  const auto integer = [&](std::optional<std::uint64_t>& field) {
    once(field.has_value());
    field = number(v, "a number");
  };
  if (name == "kernel name") {
    if (first_invalid_utf8(value)) fail(v, "the kernel name is not UTF-8");
    h_.name = std::string(value);
  } else if (name == "kernel id") {
    integer(h_.id);
  } else if (name == "grid dim") {
    dims(h_.grid);
  } else if (name == "block dim") {
    dims(h_.block);
  } else if (name == "shmem") {
    integer(h_.shmem);
  } else if (name == "nregs") {
    integer(h_.nregs);
  } else if (name == "cuda stream id") {
    integer(h_.stream);
  } else if (name == "accelsim tracer version") {
    integer(h_.version);
    if (*h_.version < 3 || *h_.version > 5)
      fail(v,
           fmt::format("tracer version {}: this reader takes versions 3 to 5 (older traces carry thread-block ids on "
                       "every line; regenerate them with a current tracer)",
                       *h_.version));
  } else if (name == "enable lineinfo") {
    std::uint64_t on = number(v, "0 or 1");
    if (on > 1) fail(v, fmt::format("expected 0 or 1, got \"{}\"", value));
    h_.lineinfo = on == 1;
  } else if (name == "shmem base_addr") {
    h_.shmem_base = number(v, "an address", 16);
  } else if (name == "local mem base_addr") {
    h_.local_base = number(v, "an address", 16);
  } else if (name == "binary version") {
    number(v, "a number");
  } else if (name == "nvbit version") {
    // Informational only.
  } else {
    fail(2, fmt::format("unknown header \"-{}\" (expected kernel name, kernel id, grid dim, block dim, shmem, nregs, "
                        "binary version, cuda stream id, shmem base_addr, local mem base_addr, nvbit version, accelsim "
                        "tracer version or enable lineinfo)",
                        name));
  }
}

void KernelReader::start_kernel() {
  started_ = true;
  const auto require = [&](bool has, const char* header) {
    if (!has) fail(0, fmt::format("the header has no -{} line", header));
  };
  require(h_.version.has_value(), "accelsim tracer version");
  require(h_.grid.has_value(), "grid dim");
  require(h_.block.has_value(), "block dim");
  require(h_.nregs.has_value(), "nregs");
  require(h_.shmem.has_value(), "shmem");
  KernelLaunch& k = out_.launch;
  k.grid = *h_.grid;
  k.block = *h_.block;
  const std::uint64_t threads = std::uint64_t{k.block[0]} * k.block[1] * k.block[2];
  if (threads > 65536) fail(0, fmt::format("-block dim of {} threads: a CUDA thread block has at most 1024", threads));
  if (*h_.nregs > 65536) fail(0, fmt::format("-nregs = {}: more registers than an SM has", *h_.nregs));
  k.registers_per_thread = static_cast<std::uint32_t>(*h_.nregs);
  k.shared_bytes = *h_.shmem;
  warps_per_cta_ = k.warps_per_cta();
  // Step by step, so that a product of three 31-bit dimensions cannot wrap past the check.
  const std::uint64_t limit = kMaxGridWarps / warps_per_cta_;
  const std::uint64_t xy = std::uint64_t{k.grid[0]} * k.grid[1];
  if (xy > limit || xy * k.grid[2] > limit)
    fail(0, fmt::format("a grid of ({},{},{}) thread blocks of {} warps is more than this reader holds ({} warps)",
                        k.grid[0], k.grid[1], k.grid[2], warps_per_cta_, kMaxGridWarps));
  const std::uint64_t ctas = k.ctas();
  k.warp_programs.assign(ctas * warps_per_cta_, nullptr);
  k.name = h_.name.empty() ? std::filesystem::path(path_).stem().string() : h_.name;
  out_.kernel_id = h_.id.value_or(0);
  out_.cuda_stream = h_.stream.value_or(0);
}

void KernelReader::finish_warp() {
  if (!warp_) return;
  if (!insts_line_) fail(0, fmt::format("warp {} (line {}) has no \"insts = N\" line", warp_id_, warp_line_));
  const std::uint64_t got = warp_->prologue.size();
  if (got != expected_)
    fail(0, fmt::format("warp {} of thread block {},{},{} has {} instructions, but its \"insts =\" (line {}) says {}",
                        warp_id_, tb_[0], tb_[1], tb_[2], got, insts_line_, expected_));
  out_.instructions += got;
  out_.launch.warp_programs[*cta_ * warps_per_cta_ + warp_id_] = std::move(warp_);
  warp_.reset();
}

void KernelReader::thread_block_line(const std::vector<Token>& f, std::string_view text) {
  const std::string_view word = f[0].text;
  if (word == "#BEGIN_TB") {
    if (tb_line_)
      fail(f[0], fmt::format("#BEGIN_TB inside the thread block begun at line {} (a missing #END_TB?)", tb_line_));
    if (!started_) start_kernel();
    tb_line_ = line_;
    cta_.reset();
    return;
  }
  if (!tb_line_) fail(f[0], fmt::format("\"{}\" outside #BEGIN_TB ... #END_TB", word));
  if (word == "#END_TB") {
    finish_warp();
    if (!cta_) fail(f[0], "the thread block has no \"thread block = x,y,z\" line");
    tb_line_ = 0;
    return;
  }
  int column = 0;
  const std::string_view value = value_after_equals(text, column);
  const Token v{value, column};
  if (word == "thread") {
    if (cta_) fail(f[0], "a second \"thread block =\" line in one #BEGIN_TB ... #END_TB");
    const auto parts = split(value, ',');
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < 3; ++i) {
      if (parts.size() != 3 || !parse_unsigned(trim(parts[i]), n) || n >= out_.launch.grid[i])
        fail(v, fmt::format("expected \"thread block = x,y,z\" inside the grid ({},{},{}), got \"{}\"",
                            out_.launch.grid[0], out_.launch.grid[1], out_.launch.grid[2], value));
      tb_[i] = static_cast<std::uint32_t>(n);
    }
    const std::array<std::uint32_t, 3>& g = out_.launch.grid;
    cta_ = tb_[0] + std::uint64_t{g[0]} * (tb_[1] + std::uint64_t{g[1]} * tb_[2]);  // x fastest
    const auto [it, fresh] = tb_first_line_.emplace(*cta_, line_);
    if (!fresh)
      fail(v,
           fmt::format("thread block {},{},{} is traced twice (first at line {})", tb_[0], tb_[1], tb_[2], it->second));
  } else if (word == "warp") {
    if (!cta_) fail(f[0], "a warp before the thread block's \"thread block = x,y,z\" line");
    finish_warp();
    const std::uint64_t w = number(v, "a warp number");
    if (w >= warps_per_cta_)
      fail(v, fmt::format("warp {}: a thread block of {} threads has warps 0 to {}", w, out_.launch.threads_per_cta(),
                          warps_per_cta_ - 1));
    warp_id_ = static_cast<std::uint32_t>(w);
    if (out_.launch.warp_programs[*cta_ * warps_per_cta_ + warp_id_])
      fail(v, fmt::format("warp {} of thread block {},{},{} is traced twice", w, tb_[0], tb_[1], tb_[2]));
    warp_ = std::make_shared<WarpProgram>();
    warp_line_ = line_;
    insts_line_ = 0;
  } else {  // insts
    if (!warp_ || insts_line_) fail(f[0], "\"insts =\" must follow a \"warp = N\" line, once");
    expected_ = number(v, "an instruction count");
    insts_line_ = line_;
    warp_->prologue.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(expected_, 1u << 20)));
  }
}

const Token& KernelReader::next(Fields& fs, const char* what) const {
  if (fs.at >= fs.tokens.size()) {
    const Token& last = fs.tokens.back();
    fail(last.column + static_cast<int>(last.text.size()), fmt::format("the line ends before the {}", what));
  }
  return fs.tokens[fs.at++];
}

void KernelReader::registers(Fields& fs, const char* what, std::uint8_t* slots, std::size_t n_slots) const {
  const Token& count_token = next(fs, what);
  const std::uint64_t count = number(count_token, "a register count");
  if (count > 8) fail(count_token, fmt::format("{} {}: at most 8", what, count));
  std::size_t kept = 0;
  for (std::uint64_t r = 0; r < count; ++r) {
    const std::uint8_t reg = register_of(next(fs, "registers the count announces"));
    if (reg != kNoReg && kept < n_slots) slots[kept++] = reg;
  }
}

std::array<std::uint64_t, 32> KernelReader::addresses(Fields& fs, std::uint32_t mask) const {
  std::array<std::uint64_t, 32> addr{};
  std::vector<int> lanes;  // active, in lane order: the order the tracer writes them in
  for (int l = 0; l < 32; ++l)
    if (mask >> l & 1u) lanes.push_back(l);
  const Token& format_token = next(fs, "address format");
  const std::uint64_t format = number(format_token, "an address format");
  if (format > 2)
    fail(format_token,
         fmt::format("address format {}: expected 0 (a list), 1 (base and stride) or 2 (base and deltas)", format));
  if (format == 0) {
    for (int l : lanes)
      addr[static_cast<std::size_t>(l)] = number(next(fs, "addresses of the active lanes"), "an address", 16);
    return addr;
  }
  std::uint64_t a = number(next(fs, "base address"), "an address", 16);
  std::int64_t step = 0;
  const auto signed_field = [&](const char* what) {
    const Token& t = next(fs, what);
    if (!parse_signed(t.text, step)) fail(t, fmt::format("expected a decimal {}, got \"{}\"", what, t.text));
  };
  if (format == 1) signed_field("stride");
  for (std::size_t j = 0; j < lanes.size(); ++j) {
    if (j > 0 && format == 2) signed_field("address delta");
    if (j > 0) a += static_cast<std::uint64_t>(step);
    addr[static_cast<std::size_t>(lanes[j])] = a;
  }
  return addr;
}

void KernelReader::memory_access(WarpInstruction& in, std::string_view opcode, std::uint8_t width,
                                 const std::array<std::uint64_t, 32>& addr) {
  in.width = width;
  const std::string_view base = opcode.substr(0, opcode.find('.'));
  const int first = in.active_mask ? __builtin_ctz(in.active_mask) : -1;
  // A generic LD/ST reaches shared memory when its address lies in the shared window (as
  // Accel-Sim resolves it); without the window's bounds it is taken as global.
  if ((base == "LD" || base == "ST") && first >= 0 && h_.shmem_base && h_.local_base &&
      addr[static_cast<std::size_t>(first)] >= h_.shmem_base && addr[static_cast<std::size_t>(first)] < h_.local_base)
    in.op = base == "LD" ? WarpOp::Lds : WarpOp::Sts;
  if (base == "LDSM") {
    // ldmatrix: each of the first 8, 16 or 32 lanes (no suffix, .2, .4) gives the address of a
    // 16-byte row; the tracer's width (from the .16 element size) is not what moves.
    const std::string_view last = opcode.substr(opcode.rfind('.') + 1);
    const int rows = last == "4" ? 32 : last == "2" ? 16 : 8;
    in.width = 16;
    if (rows < 32) in.active_mask &= (1u << rows) - 1;
  }
  place_addresses(in, addr, *warp_);
}

void KernelReader::instruction(const std::vector<Token>& tokens) {
  if (!tb_line_)
    fail(tokens[0], fmt::format("an instruction outside #BEGIN_TB ... #END_TB, got \"{}\"", tokens[0].text));
  if (!warp_ || !insts_line_) fail(tokens[0], "an instruction before the \"warp = N\" and \"insts = N\" lines");
  if (warp_->prologue.size() == expected_)
    fail(tokens[0], fmt::format("warp {} has more instructions than its \"insts = {}\" (line {})", warp_id_, expected_,
                                insts_line_));
  Fields fs{tokens};
  if (h_.lineinfo) number(next(fs, "source line number"), "a source line number");
  number(next(fs, "PC"), "a PC", 16);
  const Token& mask_token = next(fs, "active mask");
  const std::uint64_t mask = number(mask_token, "an active mask", 16);
  if (mask > 0xffffffffu) fail(mask_token, fmt::format("active mask {} has more than 32 lanes", mask_token.text));
  WarpInstruction in;
  in.active_mask = static_cast<std::uint32_t>(mask);
  registers(fs, "destination count", in.dst.data(), in.dst.size());
  const Token& opcode = next(fs, "opcode");
  if (opcode.text[0] < 'A' || opcode.text[0] > 'Z')
    fail(opcode, fmt::format("expected an opcode such as FFMA, got \"{}\"", opcode.text));
  std::string format;
  try {
    classify_sass_opcode(std::string(opcode.text), in, format);
  } catch (const std::invalid_argument& e) {
    fail(opcode, e.what());
  }
  registers(fs, "source count", in.src.data(), in.src.size());

  const Token& width_token = next(fs, "memory width");
  const std::uint64_t width = number(width_token, "a memory width in bytes");
  if (width > 255) fail(width_token, fmt::format("memory width {} B: at most 255", width));
  const bool memory = in.op == WarpOp::Lds || in.op == WarpOp::Sts || in.op == WarpOp::Ldg || in.op == WarpOp::Stg ||
                      in.op == WarpOp::CpAsync;
  if (memory && width == 0)
    fail(width_token, fmt::format("{} accesses memory: its memory width must be above 0", opcode.text));
  if (width > 0) {
    // Read even where dropped (the addresses of instructions outside the memory classes).
    const std::array<std::uint64_t, 32> addr = addresses(fs, in.active_mask);
    if (memory) memory_access(in, opcode.text, static_cast<std::uint8_t>(width), addr);
  }
  // Tracers since late 2023 end the line with the instruction's immediate (wgmma.wait_group's
  // count for WARPGROUP.DEPBAR, cp.async.wait_group's for DEPBAR); older ones do not, and their
  // DEPBAR waits for every group.
  std::int64_t immediate = 0;
  if (fs.at < tokens.size()) {
    const Token& t = tokens[fs.at++];
    if (!parse_signed(t.text, immediate))
      fail(t, fmt::format("expected the immediate or the end of the line, got \"{}\"", t.text));
  }
  if (fs.at < tokens.size())
    fail(tokens[fs.at], fmt::format("unexpected field \"{}\" after the instruction", tokens[fs.at].text));
  if (in.op == WarpOp::WgmmaWait || in.op == WarpOp::CpAsyncWait)
    in.pending = static_cast<std::uint8_t>(std::clamp<std::int64_t>(immediate, 0, 255));

  if (!format.empty()) {
    auto& formats = warp_->formats;
    const auto at = std::find(formats.begin(), formats.end(), format);
    in.format = static_cast<std::uint8_t>(at - formats.begin());
    if (at == formats.end()) formats.push_back(format);
    out_.formats.insert(format);
    out_.sparse = out_.sparse || in.sparse;
    out_.wgmma = out_.wgmma || in.op == WarpOp::Wgmma;
  }
  warp_->prologue.push_back(in);
}

void KernelReader::read() {
  std::string text;
  while (read_line(in_, text)) {
    ++line_;
    const std::vector<Token> f = split_fields(text);
    if (f.empty()) continue;
    const std::string_view first = f[0].text;
    if (first == "#BEGIN_TB" || first == "#END_TB" ||
        (started_ && f.size() >= 2 && (first == "thread" || first == "warp" || first == "insts") &&
         (first != "thread" || f[1].text == "block"))) {
      thread_block_line(f, text);
    } else if (first[0] == '#') {
      continue;  // "#traces format = ..." and other comments
    } else if (first[0] == '-') {
      header_line(trim(text));
    } else if (!started_) {
      fail(f[0], fmt::format("expected a header line (-name = value) or #BEGIN_TB, got \"{}\"", first));
    } else {
      instruction(f);
    }
  }
  if (in_.bad()) fail(0, "read error");
  if (!started_) start_kernel();
  if (tb_line_)
    fail(0, fmt::format("the file ends inside the thread block begun at line {} (no #END_TB: truncated?)", tb_line_));
}

// ---- kernelslist.g ------------------------------------------------------------------------

std::string kernel_file_problem(std::string_view name) {
  const auto ends = [&](std::string_view s) {
    return name.size() >= s.size() && name.substr(name.size() - s.size()) == s;
  };
  if (ends(".xz"))
    return fmt::format(
        "{} is compressed: this reader takes plain .traceg files (decompress it with xz -dk and list the "
        ".traceg)",
        name);
  if (ends(".trace"))
    return fmt::format(
        "{} is the tracer's raw output: run Accel-Sim's post-traces-processing on the kernelslist to get "
        "kernelslist.g and .traceg files",
        name);
  return {};
}

}  // namespace

std::size_t AccelSimTrace::kernels() const {
  return static_cast<std::size_t>(std::count_if(commands.begin(), commands.end(), [](const AccelSimCommand& c) {
    return c.type == AccelSimCommand::Type::Kernel;
  }));
}

std::uint64_t AccelSimTrace::instructions() const {
  std::uint64_t n = 0;
  for (const AccelSimCommand& c : commands) n += c.instructions;
  return n;
}

AccelSimTrace read_accelsim_trace(const std::string& kernelslist_path) {
  std::ifstream in;
  open_input_file(in, kernelslist_path, "the kernel list", SourceLoc{kernelslist_path}, kKey);
  const std::filesystem::path folder = std::filesystem::path(kernelslist_path).parent_path();
  AccelSimTrace trace;
  std::map<std::uint64_t, int> streams;  // CUDA stream handle -> Strata stream number
  std::string text;
  int line = 0;
  while (read_line(in, text)) {
    ++line;
    const std::string_view t = trim(text);
    if (t.empty() || t[0] == '#') continue;
    AccelSimCommand c;
    c.where = SourceLoc{kernelslist_path, line, 1};
    const auto fail = [&](const std::string& message) { throw InputError(c.where, kKey, message); };
    if (t.rfind("Memcpy", 0) == 0) {
      c.type = AccelSimCommand::Type::Memcpy;
      const std::vector<std::string> parts = split(t, ',');
      const std::string direction = parts[0];
      if (direction != "MemcpyHtoD" && direction != "MemcpyDtoH")
        fail(fmt::format("\"{}\": expected MemcpyHtoD or MemcpyDtoH", direction));
      c.host_to_device = direction == "MemcpyHtoD";
      if (parts.size() != 3 || !parse_unsigned(trim(parts[1]), c.address, 16) ||
          !parse_unsigned(trim(parts[2]), c.bytes))
        fail(fmt::format("expected \"{},0x<address>,<bytes>\", got \"{}\"", direction, t));
    } else if (t.rfind("kernel", 0) == 0) {
      if (const std::string problem = kernel_file_problem(t); !problem.empty()) fail(problem);
      c.file = (folder / std::string(t)).string();
      KernelReader reader(c.file, c, c.where);
      reader.read();
      c.launch.stream = streams.emplace(c.cuda_stream, static_cast<int>(streams.size())).first->second;
    } else {
      fail(fmt::format("expected a kernel trace (kernel-N.traceg) or a MemcpyHtoD line, got \"{}\"", t));
    }
    trace.commands.push_back(std::move(c));
  }
  if (in.bad()) throw InputError(SourceLoc{kernelslist_path, line, 0}, kKey, "read error");
  return trace;
}

}  // namespace strata
