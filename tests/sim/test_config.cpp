// Configuration: extends, overrides, validation errors (one line naming file, line, column and
// key) and the canonical config hash.
#include <gtest/gtest.h>

#include "accelerators/builtin_kinds.h"
#include "sim/config_loader.h"
#include "sim/experiment.h"
#include "sim/registry.h"
#include "test_util.h"

using strata::InputError;
using strata::testing::TempDir;

namespace {

const char* kTrace = "0 R 0x0\n";

// A valid experiment; `hardware_extra` lines go under hardware:, `top_extra` at the top.
std::string experiment(const std::string& hardware_extra = "", const std::string& top_extra = "") {
  return "name: t\n" + top_extra +
         "hardware:\n"
         "  kind: simple_memory\n"
         "  latency: 50 ns\n" +
         hardware_extra +
         "workload:\n"
         "  kind: memory_trace\n"
         "  path: t.trace\n";
}

class ConfigTest : public ::testing::Test {
 protected:
  ConfigTest() {
    strata::register_builtin_kinds(registry);
    dir.write("t.trace", kTrace);
  }
  strata::ResolvedExperiment resolve(const std::string& text, const std::vector<std::string>& sets = {}) {
    return strata::resolve_experiment(dir.write("exp.yaml", text), sets, registry);
  }
  // The error message of resolving `text`; fails the test if it resolves.
  std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
    try {
      resolve(text, sets);
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.find('\n'), std::string::npos) << "error must be one line: " << msg;
      return msg;
    }
    ADD_FAILURE() << "no error";
    return "";
  }
  strata::Registry registry;
  TempDir dir;
};

}  // namespace

TEST_F(ConfigTest, ValidExperimentFillsDefaults) {
  const auto r = resolve(experiment());
  EXPECT_EQ(r.name, "t");
  EXPECT_EQ(r.hash.size(), 32u);
  const auto& hw = r.root.child("hardware").params;
  EXPECT_DOUBLE_EQ(hw.quantity("latency"), 50e-9);
  EXPECT_DOUBLE_EQ(hw.quantity("bandwidth"), 25.6e9);   // default
  EXPECT_DOUBLE_EQ(hw.quantity("clock"), 1e9);          // default clock
  EXPECT_EQ(hw.integer("queue_depth"), 32);
  // Defaults are echoed in the resolved config.
  const std::string yaml = r.config.to_yaml();
  EXPECT_CONTAINS(yaml, "queue_depth: 32");
  EXPECT_CONTAINS(yaml, "max_time: 0 s");
  // Paths are resolved relative to the file that names them.
  EXPECT_EQ(r.root.child("workload").params.path("path"), dir.file("t.trace"));
}

TEST_F(ConfigTest, MalformedYaml) {
  const std::string msg = error_of("name: t\nhardware: [unclosed\n");
  EXPECT_CONTAINS(msg, "exp.yaml:");
  EXPECT_CONTAINS(msg, "malformed YAML");
}

TEST_F(ConfigTest, UnknownKeyWithSuggestion) {
  const std::string msg = error_of(experiment("  queue_dpeth: 8\n"));
  EXPECT_CONTAINS(msg, "exp.yaml:5:3: error: hardware.queue_dpeth: unknown key 'queue_dpeth'");
  EXPECT_CONTAINS(msg, "did you mean 'queue_depth'?");
  EXPECT_CONTAINS(error_of(experiment("", "sed: 3\n")), "did you mean 'seed'?");
}

TEST_F(ConfigTest, WrongType) {
  EXPECT_CONTAINS(error_of(experiment("  queue_depth: lots\n")), "hardware.queue_depth: expected an integer, got \"lots\"");
  EXPECT_CONTAINS(error_of(experiment("  queue_depth: [1, 2]\n")), "expected int, got a list");
  EXPECT_CONTAINS(error_of(experiment("", "sim:\n  timeline: maybe\n")), "sim.timeline: expected true or false");
  EXPECT_CONTAINS(error_of("name: t\nhardware: 3\nworkload: {kind: memory_trace, path: t.trace}\n"),
                  "hardware: expected a mapping with a 'kind'");
}

TEST_F(ConfigTest, BadUnitNamesFileLineAndKey) {
  const std::string msg = error_of(experiment("  bandwidth: 25.6 GB\n"));
  EXPECT_CONTAINS(msg, "exp.yaml:5:14: error: hardware.bandwidth:");
  EXPECT_CONTAINS(msg, "is a size, expected a bandwidth");
  EXPECT_CONTAINS(error_of(experiment("  clock: 1.6 ghz\n")), "did you mean \"GHz\"?");
}

TEST_F(ConfigTest, OutOfRange) {
  EXPECT_CONTAINS(error_of(experiment("  queue_depth: 0\n")), "hardware.queue_depth: 0 is out of range [1, 1048576]");
  EXPECT_CONTAINS(error_of(experiment("  clock: 500 GHz\n")), "out of range [1 kHz, 100 GHz]");
}

TEST_F(ConfigTest, MissingRequiredKeys) {
  EXPECT_CONTAINS(error_of("name: t\nhardware: {kind: simple_memory}\n"), "missing required key 'workload'");
  EXPECT_CONTAINS(error_of("name: t\nhardware: {kind: simple_memory}\nworkload: {kind: memory_trace}\n"),
                  "workload: missing required key 'path'");
  EXPECT_CONTAINS(error_of("name: t\nhardware: {latency: 5 ns}\nworkload: {kind: memory_trace, path: t.trace}\n"),
                  "hardware: missing required key 'kind' (one of: cube_engine, dram, npu, simple_memory, systolic_array)");
}

TEST_F(ConfigTest, UnknownKindAndMissingTrace) {
  EXPECT_CONTAINS(error_of("name: t\nhardware: {kind: simple_memroy}\nworkload: {kind: memory_trace, path: t.trace}\n"),
                  "unknown component kind 'simple_memroy' (did you mean 'simple_memory'?)");
  EXPECT_CONTAINS(error_of("name: t\nhardware: {kind: simple_memory}\nworkload: {kind: memory_trace, path: nope.trace}\n"),
                  "workload.path: no such file \"nope.trace\"");
}

TEST_F(ConfigTest, MissingFile) {
  try {
    strata::resolve_experiment(dir.file("absent.yaml"), {}, registry);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_CONTAINS(e.what(), "absent.yaml: error: no such file");
  }
}

TEST_F(ConfigTest, ExtendsMergesDeeplyAndResolvesRelativePaths) {
  dir.write("presets/mem.yaml", "kind: simple_memory\nlatency: 40 ns\nbandwidth: 12.8 GB/s\nqueue_depth: 4\n");
  dir.write("presets/base.yaml", "seed: 7\nworkload: {kind: memory_trace, path: ../t.trace, max_outstanding: 3}\n");
  const auto r = resolve(
      "extends: presets/base.yaml\nname: t\nhardware:\n  extends: presets/mem.yaml\n  queue_depth: 8\n");
  const auto& hw = r.root.child("hardware").params;
  EXPECT_DOUBLE_EQ(hw.quantity("latency"), 40e-9);   // from the preset
  EXPECT_EQ(hw.integer("queue_depth"), 8);            // overridden here
  EXPECT_EQ(r.root.params.integer("seed"), 7);
  EXPECT_EQ(r.root.child("workload").params.integer("max_outstanding"), 3);
  EXPECT_EQ(r.root.child("workload").params.path("path"), dir.file("t.trace"));  // relative to base.yaml
}

TEST_F(ConfigTest, ErrorsInPresetsNameThePreset) {
  dir.write("mem.yaml", "kind: simple_memory\nlatency: 40 parsecs\n");
  const std::string msg =
      error_of("name: t\nhardware: {extends: mem.yaml}\nworkload: {kind: memory_trace, path: t.trace}\n");
  EXPECT_CONTAINS(msg, "mem.yaml:2:10: error: hardware.latency:");
}

TEST_F(ConfigTest, NullDropsAPresetValue) {
  dir.write("mem.yaml", "kind: simple_memory\nqueue_depth: 4\n");
  const auto r = resolve("name: t\nhardware: {extends: mem.yaml, queue_depth: ~}\nworkload: {kind: memory_trace, path: t.trace}\n");
  EXPECT_EQ(r.root.child("hardware").params.integer("queue_depth"), 32);  // back to the default
}

TEST_F(ConfigTest, BadExtends) {
  EXPECT_CONTAINS(error_of("extends: missing.yaml\nname: t\n"), "exp.yaml:1:10: error: extends: cannot open");
  dir.write("a.yaml", "extends: b.yaml\n");
  dir.write("b.yaml", "extends: a.yaml\n");
  EXPECT_CONTAINS(error_of("extends: a.yaml\n"), "extends cycle: exp.yaml -> a.yaml -> b.yaml -> a.yaml");
  EXPECT_CONTAINS(error_of("extends: exp.yaml\n"), "extends cycle");
  dir.write("list.yaml", "- 1\n- 2\n");
  EXPECT_CONTAINS(error_of("extends: list.yaml\n"), "does not hold a mapping");
  EXPECT_CONTAINS(error_of("extends: {a: 1}\n"), "expected a file name");
}

TEST_F(ConfigTest, DuplicateKey) {
  EXPECT_CONTAINS(error_of("name: t\nname: u\n"), "exp.yaml:2:1: error: name: duplicate key");
}

TEST_F(ConfigTest, CommandLineOverrides) {
  const auto r = resolve(experiment(), {"hardware.queue_depth=4", "workload.clock=2 GHz", "sim.timeline=true"});
  EXPECT_EQ(r.root.child("hardware").params.integer("queue_depth"), 4);
  EXPECT_DOUBLE_EQ(r.root.child("workload").params.quantity("clock"), 2e9);
  EXPECT_TRUE(r.root.child("sim").params.flag("timeline"));
  const std::string msg = error_of(experiment(), {"hardware.queue_dpth=4"});
  EXPECT_CONTAINS(msg, "--set hardware.queue_dpth=4: error: hardware.queue_dpth: unknown key");
  EXPECT_CONTAINS(error_of(experiment(), {"hardware.queue_depth"}), "expected key.path=value");
  EXPECT_CONTAINS(error_of(experiment(), {"hardware.latency.x=1"}), "cannot set a key inside a scalar");
}

TEST_F(ConfigTest, HashIsCanonical) {
  const std::string h = resolve(experiment()).hash;
  // Same values written differently: units, key order, defaults spelled out, comments.
  EXPECT_EQ(resolve(experiment("  clock: 1000 MHz\n  queue_depth: 32\n")).hash, h);
  EXPECT_EQ(resolve("workload:\n  path: t.trace\n  kind: memory_trace\n# comment\nhardware:\n  latency: 0.05 us\n"
                    "  kind: simple_memory\nname: t\n")
                .hash,
            h);
  // Things that do not change results do not change the hash.
  EXPECT_EQ(resolve(experiment("", "description: other words\nsim: {progress: off, timeline: true}\n")).hash, h);
  // Anything that changes results does.
  EXPECT_NE(resolve(experiment("  queue_depth: 31\n")).hash, h);
  EXPECT_NE(resolve(experiment("", "seed: 2\n")).hash, h);
  // The trace is identified by its content, not its path.
  dir.write("copy/t.trace", kTrace);
  EXPECT_EQ(resolve(experiment()).hash, strata::resolve_experiment(dir.write("copy/exp.yaml", experiment()), {}, registry).hash);
  dir.write("t.trace", "0 W 0x0\n");
  EXPECT_NE(resolve(experiment()).hash, h);
}
