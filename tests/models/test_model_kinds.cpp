// The blocks of models/ are registered kinds that a design's role slots take: the NPU core's
// vector, scratchpad and dma slots default to the built-in kinds (naming the default changes no
// config hash), refuse a kind of another role, and take a new kind that provides the role.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "accelerators/builtin_kinds.h"
#include "memory/dram/dram.h"
#include "models/register_kinds.h"
#include "models/vector/vector_unit.h"
#include "sim/app/runner.h"
#include "sim/registry.h"
#include "test_util.h"

using strata::testing::run_strata;
using strata::testing::source_path;

namespace {

const std::string kGcn = source_path("configs/experiments/npu-gcn-cora.yaml");

std::string config_hash(const std::string& args) { return strata::testing::config_hash_of(kGcn + " " + args); }

// A vector unit of a new kind: one header, one source and one registration line in real code.
class TracedVectorUnit : public strata::VectorUnit {
 public:
  static strata::KindSpec spec() {
    strata::KindSpec s = strata::VectorUnit::spec();
    s.name = "traced_vector_unit";
    s.description = "a vector unit that counts how often the mapper asked it for estimates";
    return s;
  }
  TracedVectorUnit(sc_core::sc_module_name n, const strata::ValidatedNode& cfg, strata::SimContext& ctx)
      : VectorUnit(n, cfg, ctx) {
    ++built;
  }
  static inline int built = 0;
};

// A kind that says it provides memory_target (with the dram kind's keys) but does not implement
// MemoryTarget: a programming error that Component::build_child<MemoryTarget> reports.
class OpaqueMemory : public strata::Component {
 public:
  static strata::KindSpec spec() {
    strata::KindSpec s = strata::Dram::spec();
    s.name = "opaque_memory";
    s.description = "claims the memory_target role without its interface";
    return s;
  }
  OpaqueMemory(sc_core::sc_module_name n, const strata::ValidatedNode& cfg, strata::SimContext& ctx)
      : Component(n, cfg, ctx) {}
};

}  // namespace

TEST(ModelKinds, ModelsRegistersItsBlocks) {
  strata::Registry r;
  strata::register_model_kinds(r);
  EXPECT_EQ(r.names("component"), (std::vector<std::string>{"chip_link", "cube_engine", "dma", "noc", "scratchpad",
                                                            "systolic_array", "vector_unit"}));
}

TEST(ModelKinds, NamingARoleSlotsDefaultKindChangesNoHash) {
  const std::string plain = config_hash("");
  EXPECT_EQ(plain.size(), 32u);
  EXPECT_EQ(config_hash("--set hardware.core.vector.kind=vector_unit --set hardware.core.dma.kind=dma "
                        "--set hardware.core.scratchpad.kind=scratchpad"),
            plain);
  EXPECT_NE(config_hash("--set hardware.core.dma.max_outstanding=8"), plain);
}

TEST(ModelKinds, ARoleSlotRefusesAKindOfAnotherRole) {
  const auto r = run_strata("config " + kGcn + " --set hardware.core.vector.kind=scratchpad");
  EXPECT_EQ(r.code, 2);
  EXPECT_CONTAINS(r.err, "hardware.core.vector.kind");
  EXPECT_CONTAINS(r.err, "this slot needs a vector_unit");
}

TEST(ModelKinds, ANewKindThatProvidesTheRolePlugsIn) {
  strata::Registry registry;
  strata::register_builtin_kinds(registry);
  registry.add_component<TracedVectorUnit>();
  const auto exp = strata::resolve_experiment(kGcn, {"hardware.core.vector.kind=traced_vector_unit"}, registry);
  strata::testing::TempDir d;
  strata::RunOptions options;
  options.output_dir = d.file("out");
  strata::run_experiment(exp, registry, options);
  EXPECT_EQ(TracedVectorUnit::built, 1);  // the edge NPU has one core
  const auto stats = nlohmann::json::parse(strata::testing::read_file(d.file("out/stats.json")));
  EXPECT_GT(stats["hardware"]["core0"]["vector"]["energy"]["total"]["value"].get<double>(), 0);
}

// Designs get a role slot's child as the role's interface through build_child<I>, which casts in
// one place: a kind that provides the role without implementing the interface stops the build
// with a logic_error naming the slot, the kind and the role (not a null pointer in the design).
TEST(ModelKinds, AKindThatProvidesARoleWithoutItsInterfaceIsAProgrammingError) {
  strata::Registry registry;
  strata::register_builtin_kinds(registry);
  registry.add_component<OpaqueMemory>();
  const auto exp = strata::resolve_experiment(kGcn, {"hardware.memory.kind=opaque_memory"}, registry);
  strata::testing::TempDir d;
  strata::RunOptions options;
  options.output_dir = d.file("out");
  try {
    strata::run_experiment(exp, registry, options);
    ADD_FAILURE() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_CONTAINS(std::string(e.what()), "hardware.memory: kind opaque_memory provides role memory_target but does "
                                           "not implement its interface");
  }
}
