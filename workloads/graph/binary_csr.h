// Strata's binary CSR file: a graph that loads in constant time by memory-mapping it (POSIX mmap,
// read-only), so large graphs (Reddit, OGB) need neither parsing nor a second copy in memory.
//
// Layout, version 1. All integers little-endian; every array starts at a multiple of 8 bytes.
//
//   offset  size        field
//   0       8           magic "STRATCSR" (ASCII, no terminator)
//   8       4           version, uint32 = 1
//   12      4           flags, uint32: bit 0 = symmetric (u->v stored iff v->u); other bits 0
//   16      8           num_nodes N, uint64 (<= 2^31)
//   24      8           num_edges M, uint64 (stored directed edges)
//   32      4           name_bytes L, uint32 (<= 4096): length of the graph's name
//   36      4           reserved, uint32 = 0
//   40      L           name, UTF-8, no terminator; zero bytes up to the next multiple of 8
//   R       8 (N+1)     row_ptr, int64;  R = 40 + roundup8(L)
//   C       4 M         col_idx, int32;  C = R + 8 (N+1); zero bytes up to a multiple of 8
//   end                 file size = C + roundup8(4 M), exactly
//
// The arrays satisfy CsrGraph's invariants (rows sorted, no duplicates, ids < N).
#pragma once

#include <cstdint>
#include <string>

#include "workloads/graph/csr_graph.h"

namespace strata {

inline constexpr char kBinaryCsrMagic[8] = {'S', 'T', 'R', 'A', 'T', 'C', 'S', 'R'};
inline constexpr std::uint32_t kBinaryCsrVersion = 1;
inline constexpr std::uint32_t kBinaryCsrSymmetric = 1u << 0;
inline constexpr std::uint32_t kBinaryCsrMaxName = 4096;
inline constexpr std::uint64_t kBinaryCsrHeaderBytes = 40;

// Writes `g` atomically: to a temporary file in the same folder, flushed, then renamed over
// `path`, so a reader never sees a partial file. Throws std::runtime_error when writing fails,
// std::invalid_argument when the name is longer than kBinaryCsrMaxName bytes.
void write_binary_csr(const CsrGraph& g, const std::string& path);

// Maps `path` read-only and returns a graph whose arrays point into the mapping (zero-copy; the
// mapping lives as long as any copy of the graph). Checks the magic, version, flags, counts and
// the exact file size, then the arrays' invariants and the symmetric flag (one O(N + M) pass).
// Any mismatch is a strata::InputError naming the file: missing file, wrong magic, unsupported
// version, truncated or oversized file, corrupt arrays.
CsrGraph map_binary_csr(const std::string& path);

// Total size in bytes of the file write_binary_csr writes for a graph of this shape.
std::uint64_t binary_csr_file_size(std::uint64_t num_nodes, std::uint64_t num_edges, std::uint64_t name_bytes);

}  // namespace strata
