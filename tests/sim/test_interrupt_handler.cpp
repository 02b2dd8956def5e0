// The signal handling every command shares (sim/interrupt.h), in forked children: each case ends
// its process, and what it printed and its exit status are what a user sees.
#include "sim/interrupt.h"

#include <csignal>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "test_util.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

// A signal in the Immediate phase ends the process with one line and removes what was registered.
TEST(InterruptDeathTest, BeforeWritingASignalEndsAtOnceAndRemovesTheStagingDirectory) {
  testing::TempDir dir;
  const std::string staging = dir.file(".staging-1");
  EXPECT_EXIT(
      {
        install_interrupt_handlers();
        InterruptCleanup cleanup(staging);
        fs::create_directories(staging + "/sub");
        std::ofstream(staging + "/sub/stats.json") << "{}";
        std::raise(SIGINT);
      },
      ::testing::ExitedWithCode(130), "^strata: interrupted before anything was written\n$");
  EXPECT_FALSE(fs::exists(staging));
}

// In the Cooperative phase the first signal is only recorded; the second ends the process.
TEST(InterruptDeathTest, ASecondSignalEndsTheProcessWithOneLine) {
  EXPECT_EXIT(
      {
        install_interrupt_handlers();
        set_interrupt_phase(InterruptPhase::Cooperative);
        std::raise(SIGTERM);
        if (!interrupt_flag().load() || interrupt_exit_code() != 143) std::_Exit(3);
        std::raise(SIGINT);
        std::_Exit(4);
      },
      ::testing::ExitedWithCode(130), "^strata: interrupted again; stopping now\n$");
}

// After the command's last line on the interrupt, a further signal adds nothing to it (the line
// was the failure of Reliability.ASecondSignalLeavesNoStagingDirectory when the second signal
// came while the process was exiting).
TEST(InterruptDeathTest, ASignalAfterTheReportEndsSilently) {
  testing::TempDir dir;
  const std::string staging = dir.file(".staging-2");
  EXPECT_EXIT(
      {
        install_interrupt_handlers();
        set_interrupt_phase(InterruptPhase::Cooperative);
        InterruptCleanup cleanup(staging);
        fs::create_directories(staging);
        std::raise(SIGINT);
        if (report_interrupted("strata: interrupted; the one line\n") != 130) std::_Exit(3);
        std::raise(SIGINT);
        std::_Exit(4);
      },
      ::testing::ExitedWithCode(130), "^strata: interrupted; the one line\n$");
  EXPECT_FALSE(fs::exists(staging));
}

}  // namespace
}  // namespace strata
