#include "workloads/graph/binary_csr.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "sim/input_error.h"
#include "sim/results_writer.h"

// The file is little-endian and the arrays are used in place, so the host must be too.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "binary CSR files are little-endian; a big-endian host needs byte-swapping readers"
#endif

namespace strata {
namespace {

constexpr std::uint64_t round_up8(std::uint64_t x) { return (x + 7) & ~std::uint64_t{7}; }

struct Header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t flags;
  std::uint64_t num_nodes;
  std::uint64_t num_edges;
  std::uint32_t name_bytes;
  std::uint32_t reserved;
};
static_assert(sizeof(Header) == kBinaryCsrHeaderBytes, "header layout");

// A read-only mapping, unmapped when the last graph that uses it goes away.
struct Mapping {
  void* addr = nullptr;
  size_t len = 0;
  Mapping(void* a, size_t l) : addr(a), len(l) {}
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() {
    if (addr) ::munmap(addr, len);
  }
};

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::uint64_t binary_csr_file_size(std::uint64_t num_nodes, std::uint64_t num_edges, std::uint64_t name_bytes) {
  return kBinaryCsrHeaderBytes + round_up8(name_bytes) + 8 * (num_nodes + 1) + round_up8(4 * num_edges);
}

void write_binary_csr(const CsrGraph& g, const std::string& path) {
  if (g.name().size() > kBinaryCsrMaxName)
    throw std::invalid_argument(fmt::format("graph name is {} bytes; binary CSR files allow at most {}", g.name().size(),
                                            kBinaryCsrMaxName));
  Header h{};
  std::memcpy(h.magic, kBinaryCsrMagic, sizeof h.magic);
  h.version = kBinaryCsrVersion;
  h.flags = g.is_symmetric() ? kBinaryCsrSymmetric : 0;
  h.num_nodes = static_cast<std::uint64_t>(g.num_nodes());
  h.num_edges = static_cast<std::uint64_t>(g.num_edges());
  h.name_bytes = static_cast<std::uint32_t>(g.name().size());
  h.reserved = 0;

  static const char zeros[8] = {};
  AtomicFile file(path);
  file.write(&h, sizeof h);
  file.write(g.name().data(), g.name().size());
  file.write(zeros, round_up8(g.name().size()) - g.name().size());
  file.write(g.row_ptr(), 8 * (h.num_nodes + 1));
  if (h.num_edges > 0) file.write(g.col_idx(), 4 * h.num_edges);
  file.write(zeros, round_up8(4 * h.num_edges) - 4 * h.num_edges);
  file.commit();
}

CsrGraph map_binary_csr(const std::string& path) {
  const auto fail = [&path](const std::string& message) -> void { throw InputError(SourceLoc{path}, "", message); };
  Fd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.fd < 0) fail(fmt::format("cannot open binary CSR file: {}", std::strerror(errno)));
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) fail(fmt::format("cannot stat binary CSR file: {}", std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) fail("binary CSR path is not a regular file");
  const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);

  Header h{};
  const ssize_t got = ::pread(file.fd, &h, sizeof h, 0);
  if (got < 0) fail(fmt::format("cannot read binary CSR file: {}", std::strerror(errno)));
  const std::uint64_t have = static_cast<std::uint64_t>(got);
  if (have >= sizeof h.magic && std::memcmp(h.magic, kBinaryCsrMagic, sizeof h.magic) != 0)
    fail("not a Strata binary CSR file (bad magic; expected \"STRATCSR\")");
  if (have < sizeof h)
    fail(fmt::format("truncated binary CSR file: {} bytes, shorter than the {}-byte header", size, sizeof h));
  if (h.version != kBinaryCsrVersion)
    fail(fmt::format("unsupported binary CSR version {} (this Strata reads version {})", h.version, kBinaryCsrVersion));
  if (h.flags & ~kBinaryCsrSymmetric) fail(fmt::format("unknown binary CSR flags 0x{:x}", h.flags));
  if (h.reserved != 0) fail("corrupt binary CSR header (reserved field is not 0)");
  if (h.num_nodes > static_cast<std::uint64_t>(CsrGraph::kMaxNodes))
    fail(fmt::format("corrupt binary CSR header: {} nodes exceed {}", h.num_nodes, CsrGraph::kMaxNodes));
  if (h.num_edges > (std::uint64_t{1} << 60))
    fail(fmt::format("corrupt binary CSR header: {} edges", h.num_edges));
  if (h.name_bytes > kBinaryCsrMaxName)
    fail(fmt::format("corrupt binary CSR header: name of {} bytes (at most {})", h.name_bytes, kBinaryCsrMaxName));
  const std::uint64_t expected = binary_csr_file_size(h.num_nodes, h.num_edges, h.name_bytes);
  if (size != expected)
    fail(fmt::format("binary CSR file is {} bytes but its header ({} nodes, {} edges) needs {}: {}", size, h.num_nodes,
                     h.num_edges, expected, size < expected ? "truncated" : "trailing bytes"));
  if (size > static_cast<std::uint64_t>(SIZE_MAX)) fail("binary CSR file too large to map");

  void* addr = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE, file.fd, 0);
  if (addr == MAP_FAILED) fail(fmt::format("cannot map binary CSR file: {}", std::strerror(errno)));
  auto mapping = std::make_shared<const Mapping>(addr, static_cast<size_t>(size));
  const char* base = static_cast<const char*>(addr);
  const char* name = base + kBinaryCsrHeaderBytes;
  const std::uint64_t row_off = kBinaryCsrHeaderBytes + round_up8(h.name_bytes);
  const std::uint64_t col_off = row_off + 8 * (h.num_nodes + 1);
  for (std::uint64_t i = kBinaryCsrHeaderBytes + h.name_bytes; i < row_off; ++i)
    if (base[i] != 0) fail("corrupt binary CSR file (nonzero padding after the name)");
  for (std::uint64_t i = col_off + 4 * h.num_edges; i < size; ++i)
    if (base[i] != 0) fail("corrupt binary CSR file (nonzero padding after col_idx)");

  const auto* row_ptr = reinterpret_cast<const std::int64_t*>(base + row_off);
  const auto* col_idx = reinterpret_cast<const std::int32_t*>(base + col_off);
  if (static_cast<std::uint64_t>(row_ptr[h.num_nodes]) != h.num_edges)
    fail(fmt::format("corrupt binary CSR file: row_ptr ends at {} but the header says {} edges", row_ptr[h.num_nodes],
                     h.num_edges));
  CsrGraph g;
  try {
    g = CsrGraph::view(std::string(name, h.name_bytes), mapping, static_cast<std::int64_t>(h.num_nodes), row_ptr,
                       h.num_edges ? col_idx : nullptr);
  } catch (const std::invalid_argument& e) {
    fail(fmt::format("corrupt binary CSR file: {}", e.what()));
  }
  if (g.is_symmetric() != ((h.flags & kBinaryCsrSymmetric) != 0))
    fail(fmt::format("corrupt binary CSR file: the header flags the graph as {} but its edges are {}",
                     g.is_symmetric() ? "not symmetric" : "symmetric", g.is_symmetric() ? "symmetric" : "not"));
  return g;
}

}  // namespace strata
