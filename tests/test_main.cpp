#include <gtest/gtest.h>

#include "sim/kernel.h"

// libsystemc.so references sc_main; the tests own main() instead.
extern "C" int sc_main(int, char*[]) { return 0; }

int main(int argc, char** argv) {
  strata::init_systemc();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
