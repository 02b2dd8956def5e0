#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "sim/slot_map.h"

namespace strata {

TEST(SlotMap, IdsNameTheirObjectsUntilReleasedAndAreThenReused) {
  SlotMap<std::vector<int>> m;
  const std::uint64_t a = m.acquire(), b = m.acquire();
  EXPECT_NE(a, b);
  m[a] = {1, 2, 3};
  m[b] = {4};
  EXPECT_EQ(m.at(a).size(), 3u);
  EXPECT_EQ(m.size(), 2u);
  m.release(a);
  EXPECT_THROW(m.at(a), std::logic_error);
  EXPECT_EQ(m.at(b), std::vector<int>{4});
  // The freed slot serves the next object, with what its last one left (capacity included).
  const std::uint64_t c = m.acquire();
  EXPECT_EQ(c, a);
  EXPECT_GE(m[c].capacity(), 3u);
  m.release(b);
  m.release(c);
  EXPECT_TRUE(m.empty());
  EXPECT_THROW(m.at(99), std::logic_error);
}

}  // namespace strata
