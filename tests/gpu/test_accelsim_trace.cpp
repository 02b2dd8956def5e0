// The Accel-Sim trace reader and the accelsim_trace workload: the shipped traces read back as
// their hand-written content (kernels, grids, per-warp counts, opcode classes, tensor shapes and
// formats, registers, the three address formats), opcode classes one by one, one-line errors
// naming file:line for malformed traces, and runs through the strata binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "accelerators/gpu/accelsim_trace.h"
#include "test_util.h"

namespace strata::testing {
namespace {

const std::string kAluShared = source_path("configs/traces/accelsim/alu-shared/kernelslist.g");
const std::string kGlobalMemory = source_path("configs/traces/accelsim/global-memory/kernelslist.g");
const std::string kExample = source_path("configs/experiments/gpu-accelsim-trace.yaml");

std::vector<WarpOp> ops(const WarpProgram& p) {
  std::vector<WarpOp> out;
  for (const WarpInstruction& in : p.prologue) out.push_back(in.op);
  return out;
}

const std::string& format_of(const WarpProgram& p, const WarpInstruction& in) { return p.formats.at(in.format); }

TEST(AccelSimTrace, ReadsTheAluSharedTrace) {
  const AccelSimTrace t = read_accelsim_trace(kAluShared);
  ASSERT_EQ(t.commands.size(), 3u);
  EXPECT_EQ(t.kernels(), 2u);
  EXPECT_EQ(t.instructions(), 64u);

  const AccelSimCommand& copy = t.commands[0];
  ASSERT_EQ(copy.type, AccelSimCommand::Type::Memcpy);
  EXPECT_TRUE(copy.host_to_device);
  EXPECT_EQ(copy.address, 0x7f2000000000u);
  EXPECT_EQ(copy.bytes, 8192u);
  EXPECT_EQ(copy.where.line, 1);

  const AccelSimCommand& c = t.commands[1];
  ASSERT_EQ(c.type, AccelSimCommand::Type::Kernel);
  const KernelLaunch& k = c.launch;
  EXPECT_EQ(k.name, "_Z17alu_shared_kernelPfS_");
  EXPECT_EQ(c.kernel_id, 1u);
  EXPECT_EQ(k.grid, (std::array<std::uint32_t, 3>{2, 1, 1}));
  EXPECT_EQ(k.block, (std::array<std::uint32_t, 3>{64, 1, 1}));
  EXPECT_EQ(k.registers_per_thread, 32u);
  EXPECT_EQ(k.shared_bytes, 4096u);
  EXPECT_EQ(k.stream, 0);
  EXPECT_EQ(c.instructions, 58u);
  EXPECT_EQ(c.formats, (std::set<std::string>{"fp16", "bf16"}));
  EXPECT_FALSE(c.sparse);
  EXPECT_FALSE(c.wgmma);
  ASSERT_EQ(k.warp_programs.size(), 4u);
  for (std::uint64_t cta = 0; cta < 2; ++cta) {
    EXPECT_EQ(k.program_of(cta, 0).instructions(), 16u);
    EXPECT_EQ(k.program_of(cta, 1).instructions(), 13u);
    EXPECT_TRUE(k.program_of(cta, 0).body.empty());
  }

  const WarpProgram& w0 = k.program_of(0, 0);
  using O = WarpOp;
  EXPECT_EQ(ops(w0), (std::vector<WarpOp>{O::Int, O::Nop, O::Int, O::Sts, O::Bar, O::Lds, O::Lds, O::Mma, O::Mma,
                                          O::Fp32, O::Fp32, O::Sfu, O::Fp64, O::Int, O::Bar, O::Nop}));
  // IMAD.MOV.U32 R1 <- RZ, RZ: RZ is no register.
  EXPECT_EQ(w0.prologue[0].dst, (std::array<std::uint8_t, 2>{1, kNoReg}));
  EXPECT_EQ(w0.prologue[0].src, (std::array<std::uint8_t, 4>{kNoReg, kNoReg, kNoReg, kNoReg}));
  const WarpInstruction& ffma = w0.prologue[9];
  EXPECT_EQ(ffma.dst[0], 16);
  EXPECT_EQ(ffma.src, (std::array<std::uint8_t, 4>{12, 13, 16, kNoReg}));
  // The shared store and loads: base + stride forms.
  EXPECT_EQ(w0.prologue[3].base, 0u);
  EXPECT_EQ(w0.prologue[3].lane_stride, 4);
  EXPECT_EQ(w0.prologue[3].width, 4);
  EXPECT_EQ(w0.prologue[5].lane_stride, 16);  // LDS.U.128
  EXPECT_EQ(w0.prologue[5].width, 16);
  const WarpInstruction& ldsm = w0.prologue[6];  // LDSM.16.M88.4: 32 rows of 16 bytes
  EXPECT_EQ(ldsm.base, 0x200u);
  EXPECT_EQ(ldsm.lane_stride, 16);
  EXPECT_EQ(ldsm.width, 16);
  EXPECT_EQ(ldsm.active_mask, 0xffffffffu);
  // HMMA.16816.F32 and HMMA.16816.F32.BF16.
  for (int i : {7, 8}) {
    const WarpInstruction& mma = w0.prologue[static_cast<std::size_t>(i)];
    EXPECT_EQ(mma.m, 16);
    EXPECT_EQ(mma.n, 8);
    EXPECT_EQ(mma.k, 16);
    EXPECT_EQ(mma.src, (std::array<std::uint8_t, 4>{4, 8, 12, 12}));
  }
  EXPECT_EQ(format_of(w0, w0.prologue[7]), "fp16");
  EXPECT_EQ(format_of(w0, w0.prologue[8]), "bf16");
  EXPECT_TRUE(w0.addresses.empty());

  const WarpProgram& w1 = k.program_of(1, 1);
  EXPECT_EQ(ops(w1), (std::vector<WarpOp>{O::Int, O::Nop, O::Int, O::Sts, O::Bar, O::Lds, O::Fp32, O::Int, O::Mma,
                                          O::Fp32, O::Bar, O::Nop, O::Nop}));
  const WarpInstruction& sts64 = w1.prologue[3];  // address format 2, equal deltas: affine
  EXPECT_EQ(sts64.base, 0x800u);
  EXPECT_EQ(sts64.lane_stride, 8);
  EXPECT_EQ(sts64.width, 8);
  EXPECT_EQ(sts64.lane_addresses, -1);
  EXPECT_EQ(sts64.src, (std::array<std::uint8_t, 4>{2, 4, 5, kNoReg}));
  const WarpInstruction& lds = w1.prologue[5];  // address format 0 over 16 lanes: affine
  EXPECT_EQ(lds.active_mask, 0x0000ffffu);
  EXPECT_EQ(lds.base, 0x400u);
  EXPECT_EQ(lds.lane_stride, 4);
  EXPECT_EQ(format_of(w1, w1.prologue[8]), "bf16");

  const AccelSimCommand& tail = t.commands[2];
  EXPECT_EQ(tail.launch.name, "_Z11tail_kernelv");
  EXPECT_EQ(tail.cuda_stream, 94251184421360u);
  EXPECT_EQ(tail.launch.stream, 1);  // a second stream handle
  EXPECT_EQ(tail.launch.registers_per_thread, 16u);
  ASSERT_EQ(tail.launch.warp_programs.size(), 1u);
  const WarpProgram& only = tail.launch.program_of(0, 0);
  // Source line numbers (-enable lineinfo = 1) lead each line.
  EXPECT_EQ(ops(only), (std::vector<WarpOp>{O::Int, O::Int, O::Int, O::Fp32, O::Mma, O::Nop}));
  EXPECT_EQ(only.prologue[3].active_mask, 0x0000ffffu);
  const WarpInstruction& imma = only.prologue[4];  // IMMA.16832.S8.S8
  EXPECT_EQ(imma.m, 16);
  EXPECT_EQ(imma.n, 8);
  EXPECT_EQ(imma.k, 32);
  EXPECT_EQ(format_of(only, imma), "int8");
}

TEST(AccelSimTrace, ReadsTheThreeAddressFormats) {
  const AccelSimTrace t = read_accelsim_trace(kGlobalMemory);
  ASSERT_EQ(t.commands.size(), 4u);
  EXPECT_EQ(t.kernels(), 1u);
  EXPECT_FALSE(t.commands[3].host_to_device);  // MemcpyDtoH
  EXPECT_EQ(t.commands[3].bytes, 128u);
  const KernelLaunch& k = t.commands[2].launch;
  EXPECT_EQ(t.commands[2].instructions, 18u);
  const WarpProgram& w = k.program_of(0, 0);
  ASSERT_EQ(w.instructions(), 13u);
  using O = WarpOp;
  EXPECT_EQ(ops(w), (std::vector<WarpOp>{O::Ldg, O::Ldg, O::Ldg, O::Stg, O::Stg, O::Ldg, O::Ldg, O::Stg, O::Lds, O::Ldg,
                                         O::CpAsync, O::Ldg, O::Nop}));
  const std::uint64_t g = 0x7f2000000000;
  const auto& in = w.prologue;
  // Format 1, base and stride.
  EXPECT_EQ(in[0].base, g);
  EXPECT_EQ(in[0].lane_stride, 4);
  EXPECT_EQ(in[0].lane_addresses, -1);
  // Format 2 with equal deltas: affine, and the width from the line (LDG.E.64).
  EXPECT_EQ(in[1].base, g + 0x1000);
  EXPECT_EQ(in[1].lane_stride, 8);
  EXPECT_EQ(in[1].width, 8);
  // Format 2 with scattered deltas: a gather list of 32 addresses.
  ASSERT_EQ(in[2].lane_addresses, 0);
  EXPECT_EQ(in[2].width, 16);
  const std::vector<std::uint64_t> offsets = {0,   64,  48,  304, 320, 1024, 1040, 8,    96,   4096, 4000,
                                              12,  16,  20,  24,  28,  2048, 2064, 2080, 2096, 512,  528,
                                              544, 560, 100, 200, 300, 400,  500,  600,  700,  800};
  for (int lane = 0; lane < 32; ++lane)
    EXPECT_EQ(in[2].address(lane, w.addresses), g + 0x2000 + offsets[static_cast<std::size_t>(lane)]) << lane;
  // Format 0, a full list that is affine.
  EXPECT_EQ(in[3].base, g + 0x3000);
  EXPECT_EQ(in[3].lane_stride, 4);
  EXPECT_EQ(in[3].lane_addresses, -1);
  // Format 0 over lanes 8..15, not affine: 32 entries, 0 for the inactive lanes.
  EXPECT_EQ(in[4].active_mask, 0x0000ff00u);
  ASSERT_EQ(in[4].lane_addresses, 1);
  ASSERT_EQ(w.addresses.size(), 64u);
  const std::vector<std::uint64_t> pairs = {0, 128, 4, 132, 8, 136, 12, 140};
  for (int lane = 0; lane < 32; ++lane) {
    const std::uint64_t want = lane >= 8 && lane < 16 ? g + 0x3400 + pairs[static_cast<std::size_t>(lane - 8)] : 0;
    EXPECT_EQ(w.addresses[32 + static_cast<std::size_t>(lane)], want) << lane;
  }
  // Format 2 over a mask with gaps whose addresses follow the lane number: affine by lane.
  EXPECT_EQ(in[5].active_mask, 0xf0f0f0f0u);
  EXPECT_EQ(in[5].base, g + 0x3800);
  EXPECT_EQ(in[5].lane_stride, 4);
  // ATOMG (a load) and RED (a store) on one word: stride 0.
  EXPECT_EQ(in[6].lane_stride, 0);
  EXPECT_EQ(in[6].base, g + 0x4000);
  EXPECT_EQ(in[7].lane_stride, 4);
  // Generic LD: in the header's shared window a shared load, elsewhere a global one.
  EXPECT_EQ(in[8].base, 0x7fff00000100u);
  EXPECT_EQ(in[9].base, g);
  // LDGSTS.E.BYPASS.LTC128B.128: 16 bytes per lane.
  EXPECT_EQ(in[10].width, 16);
  EXPECT_EQ(in[10].lane_stride, 16);
  // One active lane, format 2 with no deltas.
  EXPECT_EQ(in[11].active_mask, 1u);
  EXPECT_EQ(in[11].base, g + 0x6000);
  EXPECT_EQ(in[11].address(0, w.addresses), g + 0x6000);

  const WarpProgram& w1 = k.program_of(0, 1);
  ASSERT_EQ(w1.instructions(), 5u);
  EXPECT_EQ(w1.prologue[1].lane_stride, -4);  // a negative stride
  EXPECT_EQ(w1.prologue[1].address(31, w1.addresses), g + 0x7000 - 31 * 4);
  EXPECT_EQ(w1.prologue[3].op, WarpOp::Stg);
}

struct Classified {
  std::string opcode;
  WarpOp op;
  int m = 0, n = 0, k = 0;
  std::string format = {};
  bool sparse = false;
};

TEST(AccelSimTrace, ClassifiesOpcodes) {
  using O = WarpOp;
  const std::vector<Classified> cases = {
      {"FFMA", O::Fp32},
      {"FSETP.GEU.AND", O::Fp32},
      {"HFMA2.MMA", O::Fp32},
      {"HADD2.F32", O::Fp32},
      {"FCHK", O::Fp32},
      {"IMAD.WIDE.U32", O::Int},
      {"IADD3.X", O::Int},
      {"LOP3.LUT", O::Int},
      {"SHF.R.U32.HI", O::Int},
      {"ISETP.NE.AND", O::Int},
      {"MOV", O::Int},
      {"I2F.F64", O::Int},
      {"F2I.TRUNC.NTZ", O::Int},
      {"POPC", O::Int},
      {"DFMA", O::Fp64},
      {"DSETP.GT.AND", O::Fp64},
      {"MUFU.EX2", O::Sfu},
      {"HMMA.16816.F32", O::Mma, 16, 8, 16, "fp16"},
      {"HMMA.16816.F16", O::Mma, 16, 8, 16, "fp16"},
      {"HMMA.1688.F32", O::Mma, 16, 8, 8, "fp16"},
      {"HMMA.884.F32.F32.STEP2", O::Mma, 8, 8, 4, "fp16"},
      {"HMMA.16816.F32.BF16", O::Mma, 16, 8, 16, "bf16"},
      {"HMMA.1684.F32.TF32", O::Mma, 16, 8, 4, "tf32"},
      {"HMMA.1688.F32.TF32", O::Mma, 16, 8, 8, "tf32"},
      {"HMMA.SP.16832.F32", O::Mma, 16, 8, 32, "fp16", true},
      {"IMMA.16832.S8.S8", O::Mma, 16, 8, 32, "int8"},
      {"IMMA.8816.S8.U8", O::Mma, 8, 8, 16, "int8"},
      {"IMMA.16864.S4.S4", O::Mma, 16, 8, 64, "int4"},
      {"HGMMA.64x128x16.F32", O::Wgmma, 64, 128, 16, "fp16"},
      {"HGMMA.64x256x16.F32.BF16", O::Wgmma, 64, 256, 16, "bf16"},
      {"HGMMA.64x64x8.F32.TF32", O::Wgmma, 64, 64, 8, "tf32"},
      {"QGMMA.64x128x32.F32.E5M2.E4M3", O::Wgmma, 64, 128, 32, "fp8_e5m2"},
      {"IGMMA.64x128x32.S32.S8.S8", O::Wgmma, 64, 128, 32, "int8"},
      {"WARPGROUP.DEPBAR.LE", O::WgmmaWait},
      {"WARPGROUP.ARRIVE", O::Nop},
      {"LDS.U.128", O::Lds},
      {"LDSM.16.MT88.4", O::Lds},
      {"ATOMS.ADD", O::Lds},
      {"STS.64", O::Sts},
      {"LDG.E.64.SYS", O::Ldg},
      {"LDL", O::Ldg},
      {"LDGSTS.E.BYPASS.LTC128B.128", O::CpAsync},
      {"LDGDEPBAR", O::CpAsyncCommit},
      {"DEPBAR.LE", O::CpAsyncWait},
      {"ATOMG.E.ADD.STRONG.GPU", O::Ldg},
      {"STG.E.128", O::Stg},
      {"STL.64", O::Stg},
      {"RED.E.ADD.F32.FTZ.RN.STRONG.GPU", O::Stg},
      {"BAR.SYNC.DEFER_BLOCKING", O::Bar},
      {"BAR.SYNC", O::Bar},
      {"BAR.ARV", O::Nop},
      {"DMMA.884", O::Fp64},
      {"BRA", O::Nop},
      {"EXIT", O::Nop},
      {"S2R", O::Nop},
      {"CS2R.32", O::Nop},
      {"BSSY", O::Nop},
      {"BSYNC", O::Nop},
      {"NOP", O::Nop},
      {"ISBERD", O::Nop},
      {"ULDC.64", O::Nop},
  };
  for (const Classified& c : cases) {
    WarpInstruction in;
    std::string format;
    classify_sass_opcode(c.opcode, in, format);
    EXPECT_EQ(warp_op_name(in.op), std::string(warp_op_name(c.op))) << c.opcode;
    EXPECT_EQ(in.m, c.m) << c.opcode;
    EXPECT_EQ(in.n, c.n) << c.opcode;
    EXPECT_EQ(in.k, c.k) << c.opcode;
    EXPECT_EQ(format, c.format) << c.opcode;
    EXPECT_EQ(in.sparse, c.sparse) << c.opcode;
  }
  WarpInstruction in;
  std::string format;
  EXPECT_THROW(classify_sass_opcode("HMMA.F32", in, format), std::invalid_argument);
  EXPECT_THROW(classify_sass_opcode("HGMMA.64x128.F32", in, format), std::invalid_argument);
}

// A small valid kernel file; the malformed ones below change one of its lines.
const std::vector<std::string> kKernel = {
    "-kernel name = k",                         // 1
    "-kernel id = 1",                           // 2
    "-grid dim = (2,1,1)",                      // 3
    "-block dim = (64,1,1)",                    // 4
    "-shmem = 0",                               // 5
    "-nregs = 32",                              // 6
    "-cuda stream id = 0",                      // 7
    "-accelsim tracer version = 4",             // 8
    "",                                         // 9
    "#BEGIN_TB",                                // 10
    "thread block = 0,0,0",                     // 11
    "warp = 0",                                 // 12
    "insts = 3",                                // 13
    "0000 ffffffff 1 R1 FFMA 3 R1 R2 R3 0",     // 14
    "0010 ffffffff 1 R4 LDS 1 R2 4 1 0x100 4",  // 15
    "0020 ffffffff 0 EXIT 0 0",                 // 16
    "#END_TB",                                  // 17
};

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

// The error reading a kernelslist.g of `list` beside kernel-1.traceg holding `kernel`.
std::string trace_error(const std::vector<std::string>& kernel, const std::string& list = "kernel-1.traceg\n") {
  TempDir d;
  d.write("kernelslist.g", list);
  d.write("kernel-1.traceg", joined(kernel));
  return error_of([&] { read_accelsim_trace(d.file("kernelslist.g")); });
}

std::vector<std::string> with_line(int line, const std::string& text) {
  std::vector<std::string> k = kKernel;
  k.at(static_cast<std::size_t>(line - 1)) = text;
  return k;
}

std::vector<std::string> without_line(int line) {
  std::vector<std::string> k = kKernel;
  k.erase(k.begin() + (line - 1));
  return k;
}

void expect_one_line_error(const std::string& e, const std::string& where, const std::string& what) {
  EXPECT_CONTAINS(e, where + ": error: workload.path: ");
  EXPECT_CONTAINS(e, what);
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST(AccelSimTrace, TheValidKernelReads) { EXPECT_EQ(trace_error(kKernel), "no error"); }

TEST(AccelSimTrace, MalformedKernelListsFailNamingTheLine) {
  expect_one_line_error(trace_error(kKernel, "MemcpyHtoD,0x1000,64\nkernel-2.traceg\n"), "kernelslist.g:2:1",
                        "cannot open the kernel trace");
  expect_one_line_error(trace_error(kKernel, "kernel-1.traceg.xz\n"), "kernelslist.g:1:1", "compressed");
  expect_one_line_error(trace_error(kKernel, "kernel-1.trace\n"), "kernelslist.g:1:1", "post-traces-processing");
  expect_one_line_error(trace_error(kKernel, "\nlaunch k\n"), "kernelslist.g:2:1", "expected a kernel trace");
  expect_one_line_error(trace_error(kKernel, "MemcpyHtoD,0xzz,64\n"), "kernelslist.g:1:1",
                        "MemcpyHtoD,0x<address>,<bytes>");
  expect_one_line_error(trace_error(kKernel, "MemcpyHtoH,0x10,64\n"), "kernelslist.g:1:1", "MemcpyHtoD or MemcpyDtoH");
  TempDir d;
  EXPECT_CONTAINS(error_of([&] { read_accelsim_trace(d.file("none.g")); }), "cannot open the kernel list");
}

TEST(AccelSimTrace, MalformedKernelFilesFailNamingFileAndLine) {
  struct Case {
    std::vector<std::string> kernel;
    std::string where, what;
  };
  std::vector<std::string> extra = kKernel;
  extra.insert(extra.begin() + 16, "0030 ffffffff 0 EXIT 0 0");
  std::vector<std::string> truncated = kKernel;
  truncated.pop_back();
  std::vector<std::string> twice = kKernel;
  for (int i = 10; i <= 17; ++i) twice.push_back(kKernel[static_cast<std::size_t>(i - 1)]);
  const std::vector<Case> cases = {
      {with_line(2, "-kernel colour = red"), "kernel-1.traceg:2:2", "unknown header \"-kernel colour\""},
      {with_line(3, "-grid dim = (2,x,1)"), "kernel-1.traceg:3:13", "expected -grid dim = (x,y,z)"},
      {with_line(6, "-nregs = many"), "kernel-1.traceg:6:10", "expected a number (decimal), got \"many\""},
      {with_line(8, "-accelsim tracer version = 2"), "kernel-1.traceg:8:28", "versions 3 to 5"},
      {without_line(6), "kernel-1.traceg:9", "no -nregs line"},
      {with_line(13, "insts = 4"), "kernel-1.traceg:17", "has 3 instructions, but its \"insts =\" (line 13) says 4"},
      {extra, "kernel-1.traceg:17:1", "more instructions than its \"insts = 3\""},
      {truncated, "kernel-1.traceg:16", "no #END_TB: truncated?"},
      {with_line(14, "0000 fffffffff0 1 R1 FFMA 3 R1 R2 R3 0"), "kernel-1.traceg:14:6", "more than 32 lanes"},
      {with_line(14, "0000 ffffffff 1 Q1 FFMA 3 R1 R2 R3 0"), "kernel-1.traceg:14:17", "expected a register"},
      {with_line(14, "0000 ffffffff 1 R1 FFMA 3 R1 R2 0"), "kernel-1.traceg:14:33", "expected a register such as R12"},
      {with_line(14, "0000 ffffffff 1 R1 FFMA 3 R1 R2 R3"), "kernel-1.traceg:14:35",
       "the line ends before the memory width"},
      {with_line(14, "0000 ffffffff 1 R1 FFMA 3 R1 R2 R3 0 7 8"), "kernel-1.traceg:14:40", "unexpected field \"8\""},
      {with_line(14, "0000 ffffffff 1 R1 HMMA.F32 3 R1 R2 R3 0"), "kernel-1.traceg:14:20", "no mma shape"},
      {with_line(15, "0010 ffffffff 1 R4 LDS 1 R2 4 3 0x100 4"), "kernel-1.traceg:15:31", "address format 3"},
      {with_line(15, "0010 ffffffff 1 R4 LDS 1 R2 4 0 0x100 0x104"), "kernel-1.traceg:15:44",
       "the line ends before the addresses of the active lanes"},
      {with_line(15, "0010 ffffffff 1 R4 LDS 1 R2 0"), "kernel-1.traceg:15:29", "its memory width must be above 0"},
      {with_line(11, "thread block = 2,0,0"), "kernel-1.traceg:11:16", "inside the grid (2,1,1)"},
      {with_line(12, "warp = 2"), "kernel-1.traceg:12:8", "warps 0 to 1"},
      {twice, "kernel-1.traceg:19:16", "thread block 0,0,0 is traced twice (first at line 11)"},
      {without_line(10), "kernel-1.traceg:10:1", "expected a header line (-name = value) or #BEGIN_TB"},
  };
  for (const Case& c : cases) expect_one_line_error(trace_error(c.kernel), c.where, c.what);
}

TEST(AccelSimTrace, WgmmaWaitTakesTheImmediate) {
  TempDir d;
  d.write("kernelslist.g", "kernel-1.traceg\n");
  std::vector<std::string> k = kKernel;
  k[7] = "-accelsim tracer version = 5";
  k[12] = "insts = 3";
  k[13] = "0000 ffffffff 0 HGMMA.64x128x16.F32.BF16 2 R24 R26 0 0";
  k[14] = "0010 ffffffff 0 WARPGROUP.DEPBAR.LE 0 0 1";
  k[15] = "0020 ffffffff 0 EXIT 0 0 0";
  d.write("kernel-1.traceg", joined(k));
  const AccelSimTrace t = read_accelsim_trace(d.file("kernelslist.g"));
  const AccelSimCommand& c = t.commands.at(0);
  EXPECT_TRUE(c.wgmma);
  EXPECT_EQ(c.formats, (std::set<std::string>{"bf16"}));
  const WarpProgram& p = c.launch.program_of(0, 0);
  EXPECT_EQ(p.prologue[0].op, WarpOp::Wgmma);
  EXPECT_EQ(p.prologue[1].op, WarpOp::WgmmaWait);
  EXPECT_EQ(p.prologue[1].pending, 1);
  // CTA 1 is not traced: its warps run nothing.
  EXPECT_EQ(c.launch.program_of(1, 0).instructions(), 0u);
}

// ---- through the strata binary ----

TEST(AccelSimTraceRuns, TheExampleRunsEveryInstruction) {
  TempDir dir;
  const CommandResult r = run_strata("run -q '" + kExample + "' -o '" + dir.file("out") + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = json_file(dir.file("out/summary.json"));
  EXPECT_EQ(s["warp_instructions"].get<std::uint64_t>(), read_accelsim_trace(kAluShared).instructions());
  EXPECT_EQ(s["kernels"].get<std::uint64_t>(), 2u);
  EXPECT_GT(s["latency_s"].get<double>(), 0);
}

// A one-line error and exit code 2.
void expect_input_error(const CommandResult& r, const std::string& what) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_CONTAINS(r.err, what);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

std::string trace_experiment(const TempDir& dir, const std::string& hardware, const std::string& trace) {
  return "'" +
         dir.write("e.yaml",
                   "name: t\nhardware: " + hardware + "\nworkload: {kind: accelsim_trace, path: " + trace + "}\n") +
         "'";
}

const std::string kH100 =
    "{extends: " + source_path("configs/hardware/gpu/h100-sxm.yaml") + ", sm: {dependences: scoreboard}}";

TEST(AccelSimTraceRuns, GlobalMemoryGoesThroughTheMemoryHierarchy) {
  // The trace's loads, stores and atomics reach the L2 and the HBM behind it.
  TempDir dir;
  const CommandResult r =
      run_strata("run -q " + trace_experiment(dir, kH100, kGlobalMemory) + " -o '" + dir.file("out") + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = json_file(dir.file("out/summary.json"));
  EXPECT_EQ(s["warp_instructions"].get<std::uint64_t>(), read_accelsim_trace(kGlobalMemory).instructions());
  const nlohmann::json stats = json_file(dir.file("out/stats.json"))["hardware"];
  EXPECT_GT(stats["l2"]["miss_sectors"]["value"].get<double>(), 0);
}

TEST(AccelSimTraceRuns, BadInputsFailBeforeTheRun) {
  TempDir dir;
  // Control bits the trace does not have.
  const std::string preset = "{extends: " + source_path("configs/hardware/gpu/h100-sxm.yaml") + "}";
  expect_input_error(run_strata("run -q " + trace_experiment(dir, preset, kAluShared) + " -o '" + dir.file("a") + "'"),
                     "hardware.sm.dependences: an Accel-Sim trace carries no compiler control bits");
  // Not a GPU.
  const std::string memory = "{extends: " + source_path("configs/hardware/memory/simple-ddr4-3200.yaml") + "}";
  expect_input_error(run_strata("run -q " + trace_experiment(dir, memory, kAluShared) + " -o '" + dir.file("b") + "'"),
                     "workload.kind: accelsim_trace needs a gpu");
  // A malformed kernel file.
  dir.write("bad/kernelslist.g", "kernel-1.traceg\n");
  dir.write("bad/kernel-1.traceg", joined(with_line(13, "insts = x")));
  expect_input_error(run_strata("run -q " + trace_experiment(dir, kH100, dir.file("bad/kernelslist.g")) + " -o '" +
                                dir.file("c") + "'"),
                     "kernel-1.traceg:13:9: error: workload.path: expected an instruction count");
  // A format the tensor core has no rate for (the H100 has no INT4 path).
  dir.write("int4/kernelslist.g", "kernel-1.traceg\n");
  dir.write("int4/kernel-1.traceg", joined(with_line(14, "0000 ffffffff 1 R1 IMMA.16864.S4.S4 3 R1 R2 R3 0")));
  expect_input_error(run_strata("run -q " + trace_experiment(dir, kH100, dir.file("int4/kernelslist.g")) + " -o '" +
                                dir.file("d") + "'"),
                     "workload.path: kernel k");
}

TEST(AccelSimTraceRuns, ListDocumentsTheKind) {
  const CommandResult r = run_strata("list accelsim_trace");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "Accel-Sim");
  EXPECT_CONTAINS(r.out, "kernelslist.g");
}

}  // namespace
}  // namespace strata::testing
