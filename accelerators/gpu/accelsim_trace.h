// Reader of Accel-Sim's NVBit traces (util/tracer_nvbit, tracer versions 3 to 5, after its
// post-traces-processing step): a kernelslist.g naming kernel-N.traceg files and memcpys, each
// kernel file a header and, per thread block, each warp's SASS instructions. It produces the
// warp-level representation of warp_program.h, one WarpProgram per traced warp (every
// instruction in its prologue). docs/gpu-traces.md gives the grammar, the opcode classes and
// what is left out.
//
// Any problem throws InputError naming the file and line, with key "workload.path".
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "sim/input_error.h"
#include "workloads/gpu/warp_program.h"

namespace strata {

// A command of kernelslist.g, in the file's order.
struct AccelSimCommand {
  enum class Type { Kernel, Memcpy };
  Type type = Type::Kernel;
  SourceLoc where;  // its kernelslist.g line

  // Kernel: the launch (warp_programs filled, a null entry for a warp or CTA the trace leaves
  // out), its file, the tracer's kernel id and stream handle (launch.stream numbers the
  // distinct handles 0, 1, ... in order of first use), and what the bind-time checks need.
  KernelLaunch launch;
  std::string file;
  std::uint64_t kernel_id = 0;
  std::uint64_t cuda_stream = 0;
  std::uint64_t instructions = 0;  // warp instructions, all warps
  std::set<std::string> formats;   // tensor formats its Mma and Wgmma instructions use
  bool sparse = false, wgmma = false;

  // Memcpy: MemcpyHtoD (host_to_device) or MemcpyDtoH.
  bool host_to_device = true;
  std::uint64_t address = 0, bytes = 0;
};

struct AccelSimTrace {
  std::vector<AccelSimCommand> commands;
  std::size_t kernels() const;
  std::uint64_t instructions() const;  // warp instructions of every kernel
};

AccelSimTrace read_accelsim_trace(const std::string& kernelslist_path);

// The SASS opcode's class, shape and format (exposed for tests): `in` gets op, m/n/k, sparse
// and, for a tensor instruction, `format` set to the Strata format name it reads. Throws
// std::invalid_argument for a tensor opcode whose shape cannot be read.
void classify_sass_opcode(const std::string& opcode, WarpInstruction& in, std::string& format);

}  // namespace strata
