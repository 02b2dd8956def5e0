// Arithmetic and logical expressions in sweep files (constraints, derived outputs), evaluated
// with muParser. Names may contain dots, so a config key path such as
// `hardware.core.engine.rows` is a variable. Text values compare with `==` and `!=` against
// quoted literals ("int8"): muParser has numbers only, so each distinct text is given a number
// of its own and literals are replaced by variables holding that number.
//
//   rows * cols <= 16384 && workload.quant.weights != "int4"
//   latency_s * energy_j
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "sim/input_error.h"

namespace strata {

// A variable's value: a number, or a text.
using ExprValue = std::variant<double, std::string>;

class Expression {
 public:
  // Throws InputError (at `loc`, naming `key`) when the text does not parse.
  Expression(std::string text, SourceLoc loc, std::string key);
  ~Expression();
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;

  const std::string& text() const { return text_; }
  // The variables the expression uses, sorted.
  const std::vector<std::string>& names() const { return names_; }

  // Evaluates with each variable's value from `lookup`; a name it does not know (nullopt) is an
  // InputError naming the expression.
  double eval(const std::function<std::optional<ExprValue>(const std::string&)>& lookup) const;

 private:
  struct Impl;
  std::string text_;
  SourceLoc loc_;
  std::string key_;
  std::vector<std::string> names_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata
