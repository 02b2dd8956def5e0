#include "sim/memory_budget.h"

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "sim/units.h"

namespace strata {

namespace {

constexpr const char* kLimitVariable = "STRATA_MEMORY_LIMIT";

std::uint64_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return std::numeric_limits<std::uint64_t>::max();
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

void lower_to_rlimit(int resource, std::uint64_t& budget) {
  rlimit r{};
  if (::getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
    budget = std::min(budget, static_cast<std::uint64_t>(r.rlim_cur));
}

}  // namespace

std::uint64_t memory_budget() {
  if (const char* text = std::getenv(kLimitVariable); text && *text) {
    double bytes = 0;
    try {
      bytes = parse_quantity(text, UnitFamily::Size);
    } catch (const UnitError& e) {
      throw InputError(SourceLoc{}, kLimitVariable, e.what());
    }
    if (!(bytes > 0)) throw InputError(SourceLoc{}, kLimitVariable, fmt::format("must be positive, got \"{}\"", text));
    return bytes >= 1.8e19 ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(bytes);
  }
  std::uint64_t budget = physical_memory();
  lower_to_rlimit(RLIMIT_AS, budget);
  lower_to_rlimit(RLIMIT_DATA, budget);
  return budget;
}

std::uint64_t allocated_bytes() {
  const struct mallinfo2 m = ::mallinfo2();
  return static_cast<std::uint64_t>(m.uordblks) + static_cast<std::uint64_t>(m.hblkhd);
}

void require_memory(double bytes, const std::string& what, const SourceLoc& loc, const std::string& key) {
  const std::uint64_t budget = memory_budget();
  if (bytes <= static_cast<double>(budget)) return;
  throw InputError(loc, key,
                   fmt::format("{} needs {} of memory, more than the {} this process may use (physical memory and "
                               "ulimit; {} overrides)",
                               what, format_quantity(bytes, UnitFamily::Size, 3),
                               format_quantity(static_cast<double>(budget), UnitFamily::Size, 3), kLimitVariable));
}

}  // namespace strata
