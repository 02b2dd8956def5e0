// A memory limit that starts mid-run, for the tests (LD_PRELOAD): once the process renames a
// file onto a name ending in $STRATA_TEST_ALLOC_ARM (e.g. "/config.yaml", the first file of a
// result the runner stages), allocations that would take the bytes in use above what they were
// then (plus $STRATA_TEST_ALLOC_SLACK) fail, as under a tight `ulimit -v`; memory freed afterwards
// may be allocated again. So memory runs out exactly while a result is being written, which no
// input can arrange reliably. Not built into Strata; used by tests/cli/test_reliability.cpp.
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);
}

namespace {

std::atomic<long long> g_in_use{0};
std::atomic<long long> g_limit{-1};  // -1: not armed

bool fits(size_t bytes) {
  const long long limit = g_limit.load(std::memory_order_relaxed);
  return limit < 0 || g_in_use.load(std::memory_order_relaxed) + static_cast<long long>(bytes) <= limit;
}

void* counted(void* p) {
  if (p) g_in_use.fetch_add(static_cast<long long>(malloc_usable_size(p)), std::memory_order_relaxed);
  return p;
}

void uncount(void* p) {
  if (p) g_in_use.fetch_sub(static_cast<long long>(malloc_usable_size(p)), std::memory_order_relaxed);
}

void* refused() {
  errno = ENOMEM;
  return nullptr;
}

}  // namespace

extern "C" {

void* malloc(size_t n) { return fits(n) ? counted(__libc_malloc(n)) : refused(); }

void* calloc(size_t n, size_t size) {
  if (size && n > static_cast<size_t>(-1) / size) return refused();
  return fits(n * size) ? counted(__libc_calloc(n, size)) : refused();
}

void* realloc(void* p, size_t n) {
  if (!p) return malloc(n);
  if (n == 0) {
    uncount(p);
    __libc_free(p);
    return nullptr;
  }
  const size_t old = malloc_usable_size(p);
  if (n > old && !fits(n - old)) return refused();
  uncount(p);
  void* q = __libc_realloc(p, n);
  if (!q) {
    counted(p);
    return nullptr;
  }
  return counted(q);
}

void free(void* p) {
  uncount(p);
  __libc_free(p);
}

void* memalign(size_t align, size_t n) { return fits(n) ? counted(__libc_memalign(align, n)) : refused(); }
void* aligned_alloc(size_t align, size_t n) { return memalign(align, n); }
int posix_memalign(void** out, size_t align, size_t n) {
  void* p = memalign(align, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

int rename(const char* from, const char* to) {
  const int r = renameat(AT_FDCWD, from, AT_FDCWD, to);
  const char* arm = std::getenv("STRATA_TEST_ALLOC_ARM");
  if (r == 0 && arm && *arm && g_limit.load() < 0) {
    const size_t n = std::strlen(to), m = std::strlen(arm);
    if (n >= m && std::strcmp(to + n - m, arm) == 0) {
      const char* slack = std::getenv("STRATA_TEST_ALLOC_SLACK");
      g_limit.store(g_in_use.load() + (slack ? std::atoll(slack) : 0));
    }
  }
  return r;
}

}  // extern "C"
