#include "sim/app/sweep/expression.h"

#include <muParser.h>

#include <fmt/format.h>

namespace strata {
namespace {

const char* kNameChars = "0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.";

// Texts get numbers in the order they are first seen by any expression; only equality between
// texts is meaningful, so the numbers only need to be distinct (and far from ordinary values).
double text_code(const std::string& text) {
  static std::map<std::string, double> codes;
  auto [it, inserted] = codes.emplace(text, 0.0);
  if (inserted) it->second = -1e300 + static_cast<double>(codes.size()) * 1e285;
  return it->second;
}

}  // namespace

struct Expression::Impl {
  mu::Parser parser;
  std::map<std::string, double> vars;                         // stable addresses for muParser
  std::vector<std::pair<std::string, std::string>> literals;  // variable name, text
};

Expression::Expression(std::string text, SourceLoc loc, std::string key)
    : text_(std::move(text)), loc_(std::move(loc)), key_(std::move(key)), impl_(std::make_unique<Impl>()) {
  // Quoted literals become variables __s0, __s1, ... holding their text's number.
  std::string rewritten;
  for (size_t i = 0; i < text_.size(); ++i) {
    const char c = text_[i];
    if (c != '"' && c != '\'') {
      rewritten += c;
      continue;
    }
    const size_t end = text_.find(c, i + 1);
    if (end == std::string::npos) throw InputError(loc_, key_, fmt::format("unterminated string in \"{}\"", text_));
    const std::string name = fmt::format("__s{}", impl_->literals.size());
    impl_->literals.emplace_back(name, text_.substr(i + 1, end - i - 1));
    rewritten += " " + name + " ";
    i = end;
  }
  try {
    impl_->parser.DefineNameChars(kNameChars);
    impl_->parser.SetExpr(rewritten);
    for (const auto& [name, value] : impl_->parser.GetUsedVar()) {
      (void)value;
      if (name.rfind("__s", 0) != 0) names_.push_back(name);
    }
    for (const auto& [name, lit] : impl_->literals) impl_->vars[name] = text_code(lit);
    for (const auto& name : names_) impl_->vars[name] = 1;
    for (auto& [name, slot] : impl_->vars) impl_->parser.DefineVar(name, &slot);
    impl_->parser.Eval();  // syntax errors surface here, before any value is known
  } catch (const mu::Parser::exception_type& e) {
    throw InputError(loc_, key_, fmt::format("in \"{}\": {}", text_, e.GetMsg()));
  }
}

Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;

double Expression::eval(const std::function<std::optional<ExprValue>(const std::string&)>& lookup) const {
  for (const auto& name : names_) {
    const std::optional<ExprValue> v = lookup(name);
    if (!v) throw InputError(loc_, key_, fmt::format("in \"{}\": unknown name '{}'", text_, name));
    impl_->vars[name] =
        std::holds_alternative<double>(*v) ? std::get<double>(*v) : text_code(std::get<std::string>(*v));
  }
  try {
    return impl_->parser.Eval();
  } catch (const mu::Parser::exception_type& e) {
    throw InputError(loc_, key_, fmt::format("in \"{}\": {}", text_, e.GetMsg()));
  }
}

}  // namespace strata
