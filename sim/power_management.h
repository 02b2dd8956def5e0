// A device's power management: its clock range on its node's voltage-frequency curve, its power
// limit, and the policy that picks the clock each load runs at (docs/energy-area.md, Power and
// clocks). A device kind that models power adds the keys with add_power_management_params() and
// reads them with PowerManagement::read():
//   power_limit: 700 W          # 0 W: none
//   clocks: {base: 1590 MHz, boost: 1980 MHz, idle: 345 MHz}
//   dvfs: capped                # or fixed: every load at `clock`
//   temperature: 65 C           # the die's, for its leakage (default 25 C: the tables')
//   delivery_efficiency: 0.9    # the board's regulators (default 1: no loss)
// A device without `clocks` runs at its `clock` and has no power management; temperature and
// delivery_efficiency hold with or without it (apply_die_and_board).
#pragma once

#include <functional>
#include <optional>

#include "sim/schema.h"

namespace strata {

class Component;
class TechTable;
struct ValidatedNode;

enum class DvfsPolicy { Capped, Fixed };

void add_power_management_params(KindSpec& kind);
// Only `temperature` and `delivery_efficiency` (add_power_management_params adds them too): for a
// kind with no clock of its own to manage (PIM units run at their DRAM's clock).
void add_board_params(KindSpec& kind);

// Applies `temperature` and `delivery_efficiency` to `device` and every component built under it
// (its memory): their leakage at that temperature, their energy counted at the board's input.
// Call once they are all built.
void apply_die_and_board(Component& device);

class PowerManagement {
 public:
  // `c`'s keys, or nullopt when it declares no clocks. Throws InputError (file, line, key) for
  // a clock outside the curve, a base above the boost, or a limit without clocks.
  static std::optional<PowerManagement> read(const ValidatedNode& config, const TechTable& tech);

  double boost_hz() const { return boost_hz_; }
  double base_hz() const { return base_hz_; }
  double limit_w() const { return limit_w_; }  // 0: none
  DvfsPolicy policy() const { return policy_; }
  // The clock a load starts at and an idle device holds: boost when capped, `clock` when fixed.
  double start_hz() const { return policy_ == DvfsPolicy::Fixed ? fixed_hz_ : boost_hz_; }
  // The clock of a device given nothing to run (Component::hold_idle): clocks.idle, else start_hz().
  double idle_hz() const { return idle_hz_ > 0 ? idle_hz_ : start_hz(); }

  // The supply at `hz`, as a fraction of the technology table's (whose energies are at it).
  double supply_at(double hz) const;
  // What an event's energy is multiplied by at `hz`: the supply squared.
  double energy_factor(double hz) const {
    const double s = supply_at(hz);
    return s * s;
  }
  // The clock a load runs at. Fixed: `clock`. Capped: the fastest clock in [base, boost] at
  // which `power_at(hz)` (the device's power in W running the load at that clock) stays within
  // the limit: the boost when it fits (or there is no limit), the base when even the base does
  // not; found to 1 MHz, power_at being taken to fall with the clock.
  double clock_for(const std::function<double(double hz)>& power_at) const;

 private:
  const TechTable* tech_ = nullptr;
  double boost_hz_ = 0, base_hz_ = 0, fixed_hz_ = 0, limit_w_ = 0, idle_hz_ = 0;
  DvfsPolicy policy_ = DvfsPolicy::Capped;
};

}  // namespace strata
