// The memory budget that up-front size checks compare against (sim/memory_budget.h).
#include <gtest/gtest.h>

#include <unistd.h>

#include "sim/input_error.h"
#include "sim/memory_budget.h"
#include "test_util.h"

using strata::InputError;
using strata::memory_budget;
using strata::require_memory;
using strata::testing::ScopedEnv;

TEST(MemoryBudget, EnvironmentVariableSetsIt) {
  ScopedEnv limit("STRATA_MEMORY_LIMIT", "3 GiB");
  EXPECT_EQ(memory_budget(), std::uint64_t{3} << 30);
  ScopedEnv larger("STRATA_MEMORY_LIMIT", "2 TB");  // may exceed physical memory (swap)
  EXPECT_EQ(memory_budget(), std::uint64_t{2'000'000'000'000});
}

TEST(MemoryBudget, DefaultIsPositiveAndAtMostPhysicalMemory) {
  ScopedEnv limit("STRATA_MEMORY_LIMIT", "");
  const double physical = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGE_SIZE));
  EXPECT_GT(memory_budget(), 0u);
  EXPECT_LE(static_cast<double>(memory_budget()), physical);
}

TEST(MemoryBudget, BadLimitIsAnInputError) {
  for (const char* text : {"lots", "5 GHz", "0 B", "-1 GiB"}) {
    ScopedEnv limit("STRATA_MEMORY_LIMIT", text);
    try {
      memory_budget();
      ADD_FAILURE() << "no error for " << text;
    } catch (const InputError& e) {
      EXPECT_CONTAINS(e.what(), "STRATA_MEMORY_LIMIT: ");
    }
  }
}

TEST(MemoryBudget, RequireMemoryNamesTheInputTheNeedAndTheBudget) {
  ScopedEnv limit("STRATA_MEMORY_LIMIT", "1 GiB");
  EXPECT_NO_THROW(require_memory(1 << 30, "exactly the budget"));
  try {
    require_memory(34359738368.0, "a CSR graph of 2147483648 nodes", strata::SourceLoc{"big.edges"}, "");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "big.edges: error: a CSR graph of 2147483648 nodes needs 32 GiB of memory, more than the 1 GiB this "
                 "process may use (physical memory and ulimit; STRATA_MEMORY_LIMIT overrides)");
  }
}
