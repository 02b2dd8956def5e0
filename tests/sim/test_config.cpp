// Configuration: extends, overrides, validation errors (one line naming file, line, column and
// key) and the canonical config hash.
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "accelerators/builtin_kinds.h"
#include "sim/app/experiment.h"
#include "sim/config_loader.h"
#include "sim/registry.h"
#include "sim/text.h"
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

// A quantity gets its family's range unless its spec sets one (param::quantity): a rate must be
// positive, any other quantity at least 0, a time no longer than SystemC's 64-bit femtosecond
// clock can simulate. Every kind gets it: the NAND flash's timing and a PIM host's bandwidths,
// which had no range, took -1 us, 0 Hz and 0 GB/s (read as infinitely fast) and 1e9 s.
TEST_F(ConfigTest, QuantitiesGetTheirFamilysDefaultRange) {
  const auto on = [](const std::string& preset) {
    return "name: t\nhardware:\n  extends: " + strata::testing::source_path(preset) +
           "\nworkload: {kind: memory_trace, path: t.trace}\n";
  };
  const std::string flash = on("configs/hardware/flash/cambricon-llm-s.yaml");
  EXPECT_CONTAINS(error_of(flash, {"hardware.timing.tR=-1 us"}),
                  "hardware.timing.tR: -1 us is out of range [0 s, 9223 s]");
  EXPECT_CONTAINS(error_of(flash, {"hardware.timing.t_register=-29 us"}), "-29 us is out of range [0 s, 9223 s]");
  EXPECT_CONTAINS(error_of(flash, {"hardware.timing.tR=1e9 s"}),
                  "hardware.timing.tR: 1e9 s is out of range [0 s, 9223 s]: longer than SystemC's 64-bit femtosecond "
                  "clock can simulate");
  EXPECT_CONTAINS(error_of(flash, {"hardware.timing.bus_rate=0 Hz"}), "hardware.timing.bus_rate: 0 Hz is not positive");
  EXPECT_CONTAINS(error_of(flash, {"hardware.organization.spare=-1 B"}), "-1 B is below the minimum 0 B");
  const std::string pim = on("configs/hardware/pim/attacc.yaml");
  EXPECT_CONTAINS(error_of(pim, {"hardware.host.bandwidth=0 GB/s"}), "hardware.host.bandwidth: 0 GB/s is not positive");
  EXPECT_CONTAINS(error_of(pim, {"hardware.host.bandwidth=-1 GB/s"}), "-1 GB/s is not positive");
  EXPECT_CONTAINS(error_of(pim, {"hardware.host.link_bandwidth=-5 GB/s"}),
                  "hardware.host.link_bandwidth: -5 GB/s is below the minimum 0 GB/s");
  // 0 where the spec says what it means (a host on the DRAM's bus); a time within the clock.
  EXPECT_NO_THROW(resolve(pim, {"hardware.host.link_bandwidth=0 GB/s"}));
  EXPECT_NO_THROW(resolve(flash, {"hardware.timing.tR=9000 s"}));
  // Explicit ranges keep theirs; sim.max_time (at least 0 s) gets the clock's limit too.
  EXPECT_CONTAINS(error_of(experiment(), {"hardware.latency=2 s"}), "out of range [0 s, 1 s]");
  EXPECT_CONTAINS(error_of(experiment(), {"sim.max_time=1e5 s"}), "sim.max_time: 1e5 s is out of range [0 s, 9223 s]");
}

TEST_F(ConfigTest, MissingRequiredKeys) {
  EXPECT_CONTAINS(error_of("name: t\nhardware: {kind: simple_memory}\n"), "missing required key 'workload'");
  EXPECT_CONTAINS(error_of("name: t\nhardware: {kind: simple_memory}\nworkload: {kind: memory_trace}\n"),
                  "workload: missing required key 'path'");
  EXPECT_CONTAINS(error_of("name: t\nhardware: {latency: 5 ns}\nworkload: {kind: memory_trace, path: t.trace}\n"),
                  "hardware: missing required key 'kind' (one of: cambricon_llm, chip_link, cube_engine, dma, dram, "
                  "gnn_accelerator, gpu, instinfer, nand_flash, noc, npu, package, pim, scratchpad, simple_memory, "
                  "systolic_array, vector_unit)");
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

// Hostile YAML (issue 18): every reader goes through ConfigNode::parse, so these hold for
// experiments, sweeps, rtl-check specs and --set alike.
TEST_F(ConfigTest, SelfReferentialAliasIsAnErrorNotACrash) {
  for (const std::string text : {"a: &x [*x]\n", "&a [*a]", "a: &m {b: *m}\n", "x: &s [1, [2, *s]]\n"}) {
    const std::string msg = strata::testing::error_of([&] { strata::ConfigNode::parse(text, "alias.yaml"); });
    EXPECT_CONTAINS(msg, "alias.yaml:");
    EXPECT_CONTAINS(msg, "a YAML alias refers to a node that contains it");
  }
  // Through a whole experiment and through --set.
  EXPECT_CONTAINS(error_of(experiment("", "loop: &l [*l]\n")), "a YAML alias refers to a node that contains it");
  EXPECT_CONTAINS(error_of(experiment(), {"hardware.latency=&l [*l]"}), "--set hardware.latency=");
}

// A billion laughs: ten levels of ten aliases each expand a few hundred bytes to 10^10 nodes.
TEST_F(ConfigTest, ExponentialAliasesAreBoundedBeforeExpanding) {
  std::string text = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 10; ++i) {
    text += fmt::format("l{}: &l{} [", i, i);
    for (int k = 0; k < 10; ++k) text += fmt::format("{}*l{}", k ? ", " : "", i - 1);
    text += "]\n";
  }
  ASSERT_LT(text.size(), 700u);
  const std::string msg = strata::testing::error_of([&] { strata::ConfigNode::parse(text, "bomb.yaml"); });
  EXPECT_CONTAINS(msg, "bomb.yaml:");
  EXPECT_CONTAINS(msg, "expands to more than 1000000 nodes");
  // A long scalar repeated by aliases is bounded by its bytes, not only by its nodes.
  std::string big = "s: &s " + std::string(1 << 20, 'a') + "\nl1: &l1 [";
  for (int k = 0; k < 80; ++k) big += (k ? ", *s" : "*s");
  big += "]\n";
  EXPECT_CONTAINS(strata::testing::error_of([&] { strata::ConfigNode::parse(big, "big.yaml"); }), "MiB of text");
  // Ordinary aliases still work.
  const auto ok = strata::ConfigNode::parse("a: &a {x: 1}\nb: *a\n", "ok.yaml");
  EXPECT_EQ(ok.find("b")->find("x")->value(), "1");
}

TEST_F(ConfigTest, TextThatIsNotUtf8IsRefusedWithItsLine) {
  const std::string msg = error_of("name: caf\xe9\nhardware: {kind: simple_memory}\n");
  EXPECT_CONTAINS(msg, "exp.yaml:1:10: error: not UTF-8 text (byte 0xE9");
  // Overlong forms and surrogates are not UTF-8 either.
  EXPECT_TRUE(strata::first_invalid_utf8("\xc0\xaf"));
  EXPECT_TRUE(strata::first_invalid_utf8("\xed\xa0\x80"));
  EXPECT_FALSE(strata::first_invalid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
}

// 22 files, each extending the one before it by two paths: 2^22 paths, 44 files to read.
TEST_F(ConfigTest, ExtendsDiamondsResolveEachFileOnce) {
  dir.write("d0.yaml", "hardware: {kind: simple_memory, latency: 50 ns}\n");
  for (int i = 1; i <= 22; ++i) {
    dir.write(fmt::format("d{}a.yaml", i), fmt::format("extends: d{}.yaml\nk{}a: 1\n", i - 1, i));
    dir.write(fmt::format("d{}b.yaml", i), fmt::format("extends: d{}.yaml\nk{}b: 2\n", i - 1, i));
    dir.write(fmt::format("d{}.yaml", i), fmt::format("extends: [d{}a.yaml, d{}b.yaml]\n", i, i));
  }
  const strata::ConfigNode c = strata::load_config(dir.file("d22.yaml"));
  EXPECT_EQ(c.find("k1a")->value(), "1");
  EXPECT_EQ(c.find("k22b")->value(), "2");
  EXPECT_EQ(c.find("hardware")->find("latency")->value(), "50 ns");
  // A cycle through a diamond is still found.
  dir.write("c1.yaml", "extends: [c2.yaml, c3.yaml]\n");
  dir.write("c2.yaml", "extends: c3.yaml\n");
  dir.write("c3.yaml", "extends: c1.yaml\n");
  EXPECT_CONTAINS(strata::testing::error_of([&] { strata::load_config(dir.file("c1.yaml")); }), "extends cycle");
}

TEST_F(ConfigTest, NamesThatCannotBeDirectoriesAreRefused) {
  EXPECT_CONTAINS(error_of(experiment(), {"name=" + std::string(200, 'n')}), "is 200 bytes long; at most 128");
  EXPECT_CONTAINS(error_of(experiment(), {"name=\"a\\0b\""}), "holds a control character (byte 0x00)");
  EXPECT_CONTAINS(error_of(experiment(), {"name=\"a\\nb\""}), "holds a control character (byte 0x0A)");
  EXPECT_CONTAINS(error_of(experiment(), {"name=a/b"}), "without '/'");
}

TEST(InputErrorText, LongAndBinaryTokensAreCutToOnePrintableLine) {
  const std::string token(8 << 20, 'z');
  const InputError e(strata::SourceLoc{"f.trace", 3}, "", "bad token '" + token + "'");
  const std::string msg = e.what();
  EXPECT_LT(msg.size(), 1200u);
  EXPECT_CONTAINS(msg, "more bytes)");
  const InputError b(strata::SourceLoc{"f"}, "k", std::string("a\0b\x01\xff", 5));
  EXPECT_CONTAINS(std::string(b.what()), "a\\x00b\\x01\\xFF");
}

TEST(ReadLine, AcceptsLfCrLfAndLoneCr) {
  std::istringstream in("a\rb\r\nc\nd");
  std::string line;
  std::vector<std::string> lines;
  while (strata::read_line(in, line)) lines.push_back(line);
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "b", "c", "d"}));
}

// Per-format rates are typed by the schema: names from the number-format vocabulary (aliases
// read as canonical names), positive rates, each format once; errors name the item.
TEST(FormatRates, AreParsedAgainstTheFormatVocabulary) {
  strata::Registry registry;
  strata::KindSpec spec;
  spec.name = "unit";
  spec.category = "section";
  spec.add(strata::param::format_rates("rates", "rates").def("int8=1"));
  auto validate = [&](const std::string& text) {
    strata::ConfigNode node = strata::ConfigNode::parse(text, "u.yaml");
    return strata::validate(node, spec, "unit", registry);
  };
  const auto v = validate("rates: [INT8=2, fp4=4, mxfp8=0.5]\n");
  const std::map<std::string, double> expected = {{"int8", 2}, {"fp4_e2m1", 4}, {"mxfp8_e4m3", 0.5}};
  EXPECT_EQ(v.params.format_rates("rates"), expected);
  EXPECT_EQ(validate("{}\n").params.format_rates("rates"), (std::map<std::string, double>{{"int8", 1}}));
  EXPECT_EQ(spec.params[0].type_label(), "list of format=rate");
  auto error_of = [&](const std::string& text) {
    try {
      validate(text);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    ADD_FAILURE() << "no error for " << text;
    return std::string();
  };
  EXPECT_NE(error_of("rates: [int8=1, int9=2]\n")
                .find("u.yaml:1:17: error: unit.rates[1]: unknown number format 'int9' (did you mean 'int8'?)"),
            std::string::npos)
      << error_of("rates: [int8=1, int9=2]\n");
  EXPECT_NE(error_of("rates: [int8]\n").find("unit.rates[0]: 'int8' is not format=rate"), std::string::npos);
  EXPECT_NE(error_of("rates: [int8=fast]\n").find("rate 'fast' is not a number"), std::string::npos);
  EXPECT_NE(error_of("rates: [int8=0]\n").find("rate 0 is outside (0, 64]"), std::string::npos);
  EXPECT_NE(error_of("rates: [int8=65]\n").find("rate 65 is outside (0, 64]"), std::string::npos);
  EXPECT_NE(error_of("rates: [int8=1, INT8=2]\n").find("unit.rates[1]: format 'int8' is given twice"),
            std::string::npos);
}

// A parameter added to a kind after results exist is left out of the hash at its default
// (written or not), so no result folder is renamed; set to another value it is hashed.
TEST(ConfigHash, AParameterHashedOnlyWhenChangedKeepsOldHashes) {
  strata::Registry registry;
  strata::KindSpec spec;
  spec.name = "unit";
  spec.category = "section";
  spec.add(strata::param::integer("lanes", "lanes").def("8"));
  spec.add(strata::param::quantity("span", strata::UnitFamily::Size, "span").def("4 KiB").hash_only_when_changed());
  auto canonical = [&](const std::string& text) {
    strata::ConfigNode node = strata::ConfigNode::parse(text, "u.yaml");
    return strata::validate(node, spec, "unit", registry).canonical().dump();
  };
  EXPECT_EQ(canonical("{}\n"), "{\"lanes\":8}");
  EXPECT_EQ(canonical("span: 4096 B\n"), "{\"lanes\":8}");
  EXPECT_EQ(canonical("span: 8 KiB\n"), "{\"lanes\":8,\"span\":8192.0}");
}
