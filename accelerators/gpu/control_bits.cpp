#include "accelerators/gpu/control_bits.h"

#include <algorithm>
#include <array>

namespace strata {

namespace {

constexpr int kMaxStall = 15;   // the stall field's largest value
constexpr int kBarriers = 6;    // SB0..SB5

// The cycles a fixed-latency result needs, or 0 when the producer is variable-latency (it
// gets a dependence counter instead, as does a latency beyond the stall field).
int fixed_latency(const WarpInstruction& in, const SmTiming& t) {
  const int lat = t.pipe_latency(in.op);
  return lat <= kMaxStall ? lat : 0;
}

}  // namespace

void assign_control_bits(WarpProgram& p, const SmTiming& t) {
  // The instruction sequence as it runs across one loop boundary: prologue, body, body,
  // epilogue; each position maps back to the instruction it is.
  std::vector<WarpInstruction*> seq;
  for (WarpInstruction& in : p.prologue) seq.push_back(&in);
  for (int copy = 0; copy < (p.iterations > 1 ? 2 : 1); ++copy)
    for (WarpInstruction& in : p.body) seq.push_back(&in);
  for (WarpInstruction& in : p.epilogue) seq.push_back(&in);
  for (WarpInstruction* in : seq) {
    in->stall = 1;
    in->wait_mask = 0;
    in->write_barrier = -1;
    in->reuse = 0;
  }
  // .reuse: a source the next instruction reads again in the same operand slot stays in the
  // register-file cache (the slots it has: the first three).
  for (std::size_t c = 0; c + 1 < seq.size(); ++c)
    for (std::size_t slot = 0; slot < 3; ++slot)
      if (seq[c]->src[slot] != kNoReg && seq[c + 1]->src[slot] == seq[c]->src[slot])
        seq[c]->reuse = static_cast<std::uint8_t>(seq[c]->reuse | (1u << slot));
  // Variable-latency producers take the counters in turn; a wgmma's accumulators are
  // synchronised by wgmma.wait_group instead.
  int next_barrier = 0;
  for (WarpInstruction* in : seq)
    if (in->write_barrier < 0 && fixed_latency(*in, t) == 0 && in->dst[0] != kNoReg && in->op != WarpOp::Wgmma) {
      in->write_barrier = static_cast<std::int8_t>(next_barrier);
      next_barrier = (next_barrier + 1) % kBarriers;
    }
  std::array<int, 256> writer;  // position of each register's last writer in seq
  writer.fill(-1);
  for (std::size_t c = 0; c < seq.size(); ++c) {
    WarpInstruction& in = *seq[c];
    const auto needs = [&](std::uint8_t r) {
      if (r == kNoReg || writer[r] < 0) return;
      const std::size_t w = static_cast<std::size_t>(writer[r]);
      const WarpInstruction& producer = *seq[w];
      if (producer.op == WarpOp::Wgmma) return;
      const int lat = fixed_latency(producer, t);
      if (lat == 0) {
        in.wait_mask = static_cast<std::uint8_t>(in.wait_mask | (1u << producer.write_barrier));
        return;
      }
      int distance = 0;
      for (std::size_t q = w; q < c; ++q) distance += seq[q]->stall;
      if (distance < lat) seq[c - 1]->stall = static_cast<std::uint8_t>(std::min(kMaxStall, seq[c - 1]->stall + lat - distance));
    };
    for (std::uint8_t r : in.src) needs(r);
    for (std::uint8_t r : in.dst) needs(r);
    for (std::uint8_t r : in.dst)
      if (r != kNoReg) writer[r] = static_cast<int>(c);
  }
}

}  // namespace strata
