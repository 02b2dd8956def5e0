#include "accelerators/gpu/accelsim_trace_workload.h"

#include <stdexcept>

#include <fmt/format.h>

#include "accelerators/gpu/warp_program_target.h"
#include "sim/component.h"
#include "sim/input_error.h"
#include "sim/kernel.h"

namespace strata {

namespace {

constexpr const char* kPathKey = "workload.path";

// "kernel NAME (FILE): why", without naming the kernel twice when `why` already does.
std::string kernel_message(const AccelSimCommand& c, const std::string& why) {
  const std::string name = "kernel " + c.launch.name;
  if (why.rfind(name + ":", 0) == 0) return fmt::format("{} ({}){}", name, c.file, why.substr(name.size()));
  return fmt::format("{} ({}): {}", name, c.file, why);
}

}  // namespace

// Launches every kernel of the trace at the start of the run and records when the last one
// completes.
class AccelSimTraceDriver : public Component {
 public:
  AccelSimTraceDriver(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx, WarpProgramTarget& gpu,
                      const AccelSimTrace& trace)
      : Component(name, cfg, ctx),
        gpu_(gpu),
        trace_(trace),
        total_(trace.kernels()),
        kernels_(counter("kernels", "kernels", "kernels of the trace completed")),
        memcpys_(counter("memcpys", "copies", "memcpy commands of the trace (skipped: not timed)")),
        completion_(scalar("completion_time", "s", "when the last kernel completed")) {
    ctx.report("kernels", stat_name("kernels"));
    ctx.report("latency_s", stat_name("completion_time"));
    SC_HAS_PROCESS(AccelSimTraceDriver);
    SC_THREAD(start);
  }
  bool finished() const { return finished_; }
  double progress() const { return total_ ? static_cast<double>(kernels_.count()) / static_cast<double>(total_) : 1.0; }

 private:
  void start() {
    for (const AccelSimCommand& c : trace_.commands) {
      if (c.type == AccelSimCommand::Type::Memcpy) {
        memcpys_.add();
        continue;
      }
      try {
        gpu_.launch(c.launch, [this](const KernelRun&) {
          kernels_.add();
          if (kernels_.count() < total_) return;
          completion_.set(to_seconds(sc_core::sc_time_stamp()));
          finished_ = true;
        });
      } catch (const std::invalid_argument& e) {
        // An error cannot unwind through the SystemC kernel: the runner raises it.
        context().fail(InputError(c.where, kPathKey, kernel_message(c, e.what())));
        return;
      }
    }
    if (total_ == 0) finished_ = true;
  }

  WarpProgramTarget& gpu_;
  const AccelSimTrace& trace_;
  std::size_t total_;
  Counter& kernels_;
  Counter& memcpys_;
  Scalar& completion_;
  bool finished_ = false;
};

KindSpec AccelSimTraceWorkload::spec() {
  KindSpec s;
  s.name = "accelsim_trace";
  s.description =
      "an Accel-Sim NVBit trace (kernelslist.g and kernel-N.traceg) run on a gpu, kernels in the list's order (those "
      "of one CUDA stream one after another, of different streams "
      "concurrently where docs/gpu.md allows); needs "
      "sm.dependences: scoreboard (traces carry no control bits); see docs/gpu-traces.md";
  s.add(param::path("path",
                    "the trace's kernelslist.g (after Accel-Sim's post-traces-processing; kernel files are read from "
                    "its folder, plain text, tracer versions 3 to 5)"));
  return s;
}

AccelSimTraceWorkload::AccelSimTraceWorkload(const ValidatedNode& cfg, SimContext& ctx)
    : cfg_(cfg), ctx_(ctx), trace_(read_accelsim_trace(cfg.params.path("path"))) {}

AccelSimTraceWorkload::~AccelSimTraceWorkload() = default;

void AccelSimTraceWorkload::bind(Component& hardware) {
  WarpProgramTarget& gpu = warp_program_target(hardware, cfg_, "accelsim_trace");
  const SmTiming& t = gpu.timing();
  if (t.dependences == SmTiming::Dependences::ControlBits) {
    const ValidatedNode& sm = hardware.config().child("sm");
    throw InputError(sm.where("dependences"), hardware.config().path + ".sm.dependences",
                     "an Accel-Sim trace carries no compiler control bits: set dependences: scoreboard to run one");
  }
  // What the GPU would refuse only once the kernel runs, refused here, naming the kernel.
  for (const AccelSimCommand& c : trace_.commands) {
    if (c.type != AccelSimCommand::Type::Kernel) continue;
    const auto fail = [&](const std::string& why) { throw InputError(c.where, kPathKey, kernel_message(c, why)); };
    try {
      occupancy(gpu.limits(), c.launch.threads_per_cta(), c.launch.registers_per_thread, c.launch.shared_bytes);
    } catch (const OccupancyError& e) {
      fail(e.what());
    }
    for (const std::string& f : c.formats)
      if (!t.tensor_macs.count(f))
        fail(fmt::format("its tensor instructions read {}, which the tensor core has no rate for", f));
    if (c.sparse && !t.sparsity) fail("its tensor instructions are 2:4 sparse, which the tensor core does not support");
    if (c.wgmma && t.wgmma_latency == 0)
      fail("it uses wgmma (HGMMA), which this GPU has not (tensor_core.wgmma_latency is 0)");
  }
  driver_ = std::make_unique<AccelSimTraceDriver>("workload", cfg_, ctx_, gpu, trace_);
}

bool AccelSimTraceWorkload::finished() const { return driver_ && driver_->finished(); }

std::optional<double> AccelSimTraceWorkload::progress() const {
  if (!driver_) return std::nullopt;
  return driver_->progress();
}

}  // namespace strata
