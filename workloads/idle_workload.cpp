#include "workloads/idle_workload.h"

#include <algorithm>

#include "sim/component.h"
#include "sim/ports.h"
#include "sim/tlm_at.h"

namespace strata {

// Waits out the span; its statistic is the run's latency. With `port`, it has an initiator
// socket that sends nothing, for a bare memory's target socket.
class IdleDriver : public Component {
 public:
  IdleDriver(sc_core::sc_module_name name, const ValidatedNode& cfg, SimContext& ctx, double seconds, bool port)
      : Component(name, cfg, ctx), seconds_(seconds), span_(scalar("duration", "s", "the span the hardware rested")) {
    if (port)
      port_ =
          std::make_unique<AtInitiator>("initiator_socket", [](tlm::tlm_generic_payload&, const sc_core::sc_time&) {});
    ctx.report("latency_s", stat_name("duration"));
    SC_HAS_PROCESS(IdleDriver);
    SC_THREAD(rest);
  }
  bool finished() const { return finished_; }
  InitiatorSocket& socket() { return port_->socket(); }
  double done_fraction() const {
    return finished_ ? 1.0 : std::min(1.0, sc_core::sc_time_stamp().to_seconds() / seconds_);
  }
  void record() {
    span_.set(seconds_);
    finished_ = true;
  }

 private:
  void rest() {
    wait(sc_core::sc_time(seconds_, sc_core::SC_SEC));
    record();
  }

  std::unique_ptr<AtInitiator> port_;
  double seconds_;
  Scalar& span_;
  bool finished_ = false;
};

KindSpec IdleWorkload::spec() {
  KindSpec s;
  s.name = "idle";
  s.description =
      "the hardware with nothing to run: leakage, clock trees at each device's idle clock (clocks.idle), memory "
      "background and refresh (a device's idle power)";
  s.add(param::quantity("duration", UnitFamily::Time,
                        "how long the hardware rests; its power is steady, so a short span reads what seconds would")
            .def("100 us")
            .range("1 ns", "1 s"));
  return s;
}

IdleWorkload::IdleWorkload(const ValidatedNode& cfg, SimContext& ctx)
    : cfg_(cfg), ctx_(ctx), duration_s_(cfg.params.quantity("duration")) {}

IdleWorkload::~IdleWorkload() = default;

void IdleWorkload::bind(Component& hardware) {
  for (Component* c : hardware.with_descendants()) c->hold_idle();
  auto* memory = dynamic_cast<MemoryTarget*>(&hardware);
  driver_ = std::make_unique<IdleDriver>("workload", cfg_, ctx_, duration_s_, memory != nullptr);
  if (memory) bind_at(ctx_, driver_->socket(), memory->target_socket(), "workload");
}

bool IdleWorkload::finished() const { return driver_ && driver_->finished(); }

std::optional<double> IdleWorkload::progress() const {
  if (!driver_) return std::nullopt;
  return driver_->done_fraction();
}

double IdleWorkload::evaluate_analytic() {
  driver_->record();
  return duration_s_;
}

}  // namespace strata
