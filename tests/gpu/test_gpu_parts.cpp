// The GPU's SM, tensor core and L2 are part kinds in role slots (accelerators/gpu/gpu_parts.h):
// the presets' sections are the default kinds, so naming them changes no config hash; a kind
// without the slot's role is refused at its `kind:` with file and line; and a kind a user
// registers takes the slot and changes what runs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "accelerators/builtin_kinds.h"
#include "accelerators/gpu/gpu_parts.h"
#include "sim/app/experiment.h"
#include "sim/app/runner.h"
#include "sim/registry.h"
#include "test_util.h"

namespace strata::testing {
namespace {

const std::string kFp32Rate = source_path("configs/experiments/gpu-ubench-fp32-rate.yaml");

TEST(GpuParts, NamingTheDefaultKindsChangesNoConfigHash) {
  Registry registry;
  register_builtin_kinds(registry);
  const std::string plain = resolve_experiment(kFp32Rate, {}, registry).hash;
  const std::string named =
      resolve_experiment(kFp32Rate, {"hardware.sm.kind=sm", "hardware.tensor_core.kind=tensor_core", "hardware.l2.kind=l2"},
                         registry)
          .hash;
  EXPECT_EQ(plain, named);
  // A key of a part still moves the hash.
  EXPECT_NE(plain, resolve_experiment(kFp32Rate, {"hardware.sm.sub_cores=2"}, registry).hash);
}

TEST(GpuParts, AKindWithoutTheSlotsRoleIsRefusedAtItsKindKey) {
  TempDir dir;
  const std::string exp = dir.write("wrong.yaml", "name: wrong\nhardware:\n  extends: " +
                                                      source_path("configs/hardware/gpu/h100-sxm.yaml") +
                                                      "\n  sm:\n    kind: l2\nworkload:\n  kind: gpu_microbenchmark\n"
                                                      "  benchmark: issue_rate\n  pipe: fp32\n");
  const CommandResult r = run_strata("run -q '" + exp + "' -o '" + dir.file("out") + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_CONTAINS(r.err, "wrong.yaml:5:");
  EXPECT_CONTAINS(r.err, "hardware.sm.kind: kind 'l2' cannot be used here: this slot needs a sm");
  EXPECT_FALSE(std::filesystem::exists(dir.file("out/summary.json")));
  // A component kind is not a part at all.
  const CommandResult c = run_strata("run -q '" + kFp32Rate + "' --set hardware.l2.kind=dram -o '" + dir.file("out") + "'");
  EXPECT_EQ(c.code, 2);
  EXPECT_CONTAINS(c.err, "hardware.l2.kind: unknown part kind 'dram'");
}

// An SM kind of a user's: the default SM's keys, but always two sub-cores instead of four,
// made from the registered `sm` kind as a kind that derives from another would be.
class TwoSubCoreSm final : public SmPart {
 public:
  TwoSubCoreSm(const Registry& registry, const ValidatedNode& node) : as_default_(node) {
    as_default_.spec = registry.find(kPartCategory, "sm");
    base_ = registry.make<SmPart>(as_default_);
    limits_ = base_->limits();
    limits_.sub_cores = 2;
  }
  const SmLimits& limits() const override { return limits_; }
  void time(SmTiming& t) const override {
    base_->time(t);
    t.sub_cores = 2;
  }

 private:
  ValidatedNode as_default_;
  std::unique_ptr<SmPart> base_;
  SmLimits limits_;
};

TEST(GpuParts, ARegisteredSmKindTakesTheSlot) {
  Registry registry;
  register_builtin_kinds(registry);
  KindSpec spec = *registry.find(kPartCategory, "sm");
  spec.name = "two_sub_core_sm";
  spec.description = "the default SM with two sub-cores";
  registry.add_kind<SmPart>(spec, [&registry](const ValidatedNode& node) {
    return std::unique_ptr<SmPart>(std::make_unique<TwoSubCoreSm>(registry, node));
  });
  TempDir dir;
  const auto exp = resolve_experiment(kFp32Rate, {"hardware.sm.kind=two_sub_core_sm"}, registry);
  RunOptions options;
  options.output_dir = dir.file("out");
  run_experiment(exp, registry, options);
  // Half the warp schedulers and FP32 lanes: half the 128 FFMA lanes' rate of the default SM.
  const double measured = json_file(dir.file("out/summary.json")).at("measured").get<double>();
  EXPECT_NEAR(measured, 64.0, 64.0 * 0.05);
}

}  // namespace
}  // namespace strata::testing
