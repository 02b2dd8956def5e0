#include <gtest/gtest.h>

#include <functional>

#include <CLI/CLI.hpp>

#include "accelerators/builtin_kinds.h"
#include "sim/app/cli.h"
#include "sim/app/experiment.h"
#include "sim/cli_extension.h"
#include "sim/component.h"
#include "sim/registry.h"
#include "sim/simulated_time.h"
#include "test_util.h"

namespace {

// A minimal component kind, registered the way every real kind is.
class Widget : public strata::Component {
 public:
  static strata::KindSpec spec() {
    strata::KindSpec s;
    s.name = "widget";
    s.description = "a test component";
    s.with_clock();
    s.add(strata::param::integer("lanes", "vector lanes").def("8").range("1", "64"));
    s.add(strata::param::quantity("buffer", strata::UnitFamily::Size, "buffer capacity").def("64 KiB"));
    s.add(strata::param::choice("mode", {"fast", "slow"}, "operating mode").def("fast"));
    s.provides("widget_role");
    return s;
  }
  Widget(sc_core::sc_module_name n, const strata::ValidatedNode& cfg, strata::SimContext& ctx) : Component(n, cfg, ctx) {}
};

}  // namespace

TEST(Registry, RegistersAndDescribesKinds) {
  strata::Registry r;
  r.add_component<Widget>();
  ASSERT_NE(r.find("component", "widget"), nullptr);
  EXPECT_EQ(r.find("workload", "widget"), nullptr);
  EXPECT_EQ(r.names("component"), std::vector<std::string>{"widget"});
  const std::string text = strata::describe_kind(*r.find("component", "widget"));
  EXPECT_NE(text.find("widget (component): a test component"), std::string::npos) << text;
  EXPECT_NE(text.find("lanes"), std::string::npos);
  EXPECT_NE(text.find("default 8, range [1, 64]"), std::string::npos) << text;
  EXPECT_NE(text.find("enum{fast|slow}"), std::string::npos) << text;
  EXPECT_NE(text.find("clock"), std::string::npos);
}

TEST(Registry, RejectsDuplicateKinds) {
  strata::Registry r;
  r.add_component<Widget>();
  EXPECT_THROW(r.add_component<Widget>(), std::logic_error);
}

TEST(Registry, BuiltinKinds) {
  strata::Registry r;
  strata::register_builtin_kinds(r);
  EXPECT_NE(r.find("component", "simple_memory"), nullptr);
  EXPECT_NE(r.find("workload", "memory_trace"), nullptr);
  // Every parameter of every kind has a description and a valid default.
  for (const char* category : strata::kListedCategories) {
    for (const strata::KindSpec* k : r.kinds(category)) {
      EXPECT_FALSE(k->description.empty()) << k->name;
      for (const auto& p : k->params) EXPECT_FALSE(p.description.empty()) << k->name << "." << p.name;
    }
  }
}

// No quantity of any kind accepts a negative value or a time SystemC cannot simulate, and a rate
// (frequency, bandwidth) accepts 0 only where its description says what 0 means: the family
// defaults of param::quantity hold for every kind and section, and the specs that replace them
// keep to the same rules.
TEST(Registry, NoQuantityAcceptsADegenerateValue) {
  strata::Registry r;
  strata::register_builtin_kinds(r);
  int checked = 0;
  std::function<void(const strata::KindSpec&, const std::string&)> check = [&](const strata::KindSpec& k,
                                                                               const std::string& where) {
    for (const auto& p : k.params) {
      if (p.type != strata::ParamType::Quantity) continue;
      ++checked;
      const std::string name = where + "." + p.name;
      ASSERT_TRUE(p.min.has_value()) << name;
      EXPECT_GE(*p.min, 0) << name;
      const bool rate = p.family == strata::UnitFamily::Frequency || p.family == strata::UnitFamily::Bandwidth;
      if (rate && *p.min == 0) {
        EXPECT_NE(p.description.find('0'), std::string::npos) << name << ": what does 0 mean?";
      }
      if (p.family == strata::UnitFamily::Time) {
        ASSERT_TRUE(p.max.has_value()) << name;
        EXPECT_LE(*p.max, strata::kMaxSimulatedSeconds) << name;
      }
    }
    for (const auto& s : k.slots)
      if (s.fixed) check(*s.fixed, where + "." + s.name);
  };
  for (const char* category : strata::kListedCategories)
    for (const strata::KindSpec* k : r.kinds(category)) check(*k, k->name);
  EXPECT_GT(checked, 50);
  // `strata list` writes a rate's default bound as exclusive.
  const std::string flash = strata::describe_kind(*r.find("component", "nand_flash"));
  EXPECT_NE(flash.find("default 1000 MHz, above 0 Hz"), std::string::npos) << flash;
  EXPECT_NE(flash.find("default 30 us, range [0 s, 9223 s]"), std::string::npos) << flash;
}

TEST(Registry, BuildsAComponentWithTypedParams) {
  strata::Registry r;
  r.add_component<Widget>();
  strata::ConfigNode node = strata::ConfigNode::parse("kind: widget\nlanes: 16\nclock: 2 GHz\n", "inline");
  strata::SlotSpec slot{"hardware", "", "component", "", true, nullptr};
  strata::KindSpec top;
  top.name = "top";
  top.category = "section";
  top.slot(slot);
  strata::ConfigNode root = strata::ConfigNode::map({});
  root.set("hardware", node);
  const strata::ValidatedNode v = strata::validate(root, top, "", r);
  strata::SimContext ctx(r, 1, 1e-6);
  auto c = r.make_component("hw", v.child("hardware"), ctx);
  EXPECT_EQ(c->params().integer("lanes"), 16);
  EXPECT_DOUBLE_EQ(c->params().quantity("buffer"), 65536);
  EXPECT_EQ(c->params().string("mode"), "fast");
  EXPECT_EQ(c->clock().frequency_hz(), 2000000000u);
  EXPECT_STREQ(c->name(), "hw");
  EXPECT_THROW(c->params().integer("buffer"), std::logic_error);  // wrong type is a programming error
}

TEST(Registry, RoleMismatchIsAnInputError) {
  strata::Registry r;
  r.add_component<Widget>();
  strata::KindSpec top;
  top.name = "top";
  top.category = "section";
  top.slot(strata::SlotSpec{"memory", "", "component", "memory_target", true, nullptr});
  strata::ConfigNode root = strata::ConfigNode::parse("memory: {kind: widget}\n", "inline.yaml");
  try {
    strata::validate(root, top, "", r);
    FAIL();
  } catch (const strata::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("memory.kind: kind 'widget' cannot be used here: this slot needs a memory_target"),
              std::string::npos)
        << e.what();
  }
}

// A design's own sim.* option (the GPU's `sample`): validated, defaulted and hashed with the
// sim section where its folder registered it, an unknown key where not.
TEST(Registry, SimOptionsAreThoseTheFoldersAdd) {
  strata::testing::TempDir dir;
  const std::string exp = dir.write("e.yaml", "name: e\nsim: {widget_mode: slow}\nworkload: {kind: widget_load}\n");
  strata::Registry with, without;
  for (strata::Registry* r : {&with, &without}) {
    strata::KindSpec load;
    load.name = "widget_load";
    load.category = "workload";
    r->add_workload(load, nullptr);
  }
  with.add_sim_option(strata::param::choice("widget_mode", {"fast", "slow"}, "how widgets run").def("fast"));
  const strata::ResolvedExperiment a = strata::resolve_experiment(exp, {}, with);
  EXPECT_EQ(a.root.child("sim").params.string("widget_mode"), "slow");
  const strata::ResolvedExperiment b = strata::resolve_experiment(exp, {"sim.widget_mode=fast"}, with);
  EXPECT_NE(a.hash, b.hash);
  EXPECT_NE(strata::describe_kind(strata::sim_section_spec(with)).find("widget_mode"), std::string::npos);
  try {
    strata::resolve_experiment(exp, {}, without);
    FAIL() << "an option no folder added was accepted";
  } catch (const strata::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("e.yaml:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sim.widget_mode"), std::string::npos) << e.what();
  }
  // Validated trees point to the composed section: options come before the first experiment.
  EXPECT_THROW(with.add_sim_option(strata::param::boolean("late", "added too late").def("false")), std::logic_error);
}

namespace {

// A kind of a category sim/ does not know, as rtl/'s reference models are.
struct Gadget {
  virtual ~Gadget() = default;
  virtual int width() const = 0;
};
struct WideGadget : Gadget {
  explicit WideGadget(int w) : w(w) {}
  int width() const override { return w; }
  int w;
};

int run_cli(const strata::Registry& r, std::vector<std::string> args) {
  args.insert(args.begin(), "strata");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return strata::run_cli(static_cast<int>(argv.size()), argv.data(), r);
}

}  // namespace

TEST(Registry, MakesKindsOfOtherCategoriesThroughTheirBase) {
  strata::Registry r;
  strata::KindSpec spec;
  spec.name = "wide";
  spec.category = "gadget";
  spec.description = "a gadget";
  spec.add(strata::param::integer("width", "bits").def("8"));
  r.add_kind<Gadget>(spec, [](const strata::ValidatedNode& n) {
    return std::unique_ptr<Gadget>(std::make_unique<WideGadget>(static_cast<int>(n.params.integer("width"))));
  });
  EXPECT_EQ(r.names("gadget"), std::vector<std::string>{"wide"});
  strata::ConfigNode node = strata::ConfigNode::parse("kind: wide\nwidth: 12\n", "inline");
  const strata::ValidatedNode v = strata::validate(node, *r.find("gadget", "wide"), "gadget", r);
  EXPECT_EQ(r.make<Gadget>(v)->width(), 12);
}

TEST(Registry, RegisteredCommandsAndRunImportersReachTheCli) {
  strata::Registry r;
  std::string seen;
  strata::CliCommand c;
  c.name = "frob";
  c.description = "frobnicate";
  c.define = [&seen](CLI::App& app, const strata::Registry&) {
    auto arg = std::make_shared<std::string>();
    app.add_option("what", *arg)->required();
    return [arg, &seen] {
      seen = *arg;
      return 7;
    };
  };
  r.add_command(c);
  EXPECT_THROW(r.add_command(c), std::logic_error);
  strata::RunImporter imp;
  imp.name = "peer";
  imp.label = "Peer";
  imp.options = {{"--peer-a", "a"}, {"--peer-b", "b"}};
  imp.experiment = [](const std::vector<std::string>&) -> std::string { throw std::logic_error("not reached"); };
  r.add_run_importer(imp);

  EXPECT_EQ(run_cli(r, {"frob", "knobs"}), 7);
  EXPECT_EQ(seen, "knobs");
  // An importer's options go together, and not with an experiment file (exit 2 before it runs).
  testing::internal::CaptureStderr();
  EXPECT_EQ(run_cli(r, {"run", "--peer-a", "x"}), 2);
  EXPECT_EQ(run_cli(r, {"run", "e.yaml", "--peer-a", "x", "--peer-b", "y"}), 2);
  EXPECT_EQ(run_cli(r, {"run"}), 2);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("--peer-b: --peer-a and --peer-b go together"), std::string::npos) << err;
  EXPECT_NE(err.find("give an experiment file or Peer files, not both"), std::string::npos) << err;
  EXPECT_NE(err.find("an experiment file (or --peer-a and --peer-b) is required"), std::string::npos) << err;
}

TEST(SimContext, SeededRandomStreamsAreReproducibleAndIndependent) {
  strata::Registry r;
  const strata::SimContext a(r, 42, 1e-6), b(r, 42, 1e-6), c(r, 43, 1e-6);
  auto a1 = a.rng("hardware.memory");
  auto b1 = b.rng("hardware.memory");
  auto a2 = a.rng("workload");
  auto c1 = c.rng("hardware.memory");
  const auto first = a1();
  EXPECT_EQ(first, b1());  // same seed and stream name: same sequence
  EXPECT_NE(first, a2());  // another stream of the same run
  EXPECT_NE(first, c1());  // another seed
}
