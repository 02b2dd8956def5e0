#include "sim/json_line.h"

#include <algorithm>

#include "sim/input_error.h"

namespace strata {

namespace {

// nlohmann's message without its "[json.exception.<kind>.<id>] " prefix and, for parse errors,
// the "parse error at line 1, column N: " that the location already says.
std::string message_of(const nlohmann::json::exception& e) {
  std::string m = e.what();
  if (const size_t bracket = m.find("] "); m.rfind("[json.exception.", 0) == 0 && bracket != std::string::npos)
    m.erase(0, bracket + 2);
  if (m.rfind("parse error", 0) == 0)
    if (const size_t colon = m.find(": "); colon != std::string::npos) m.erase(0, colon + 2);
  return m;
}

}  // namespace

nlohmann::json parse_json_line(const std::string& text, const std::string& path, int line) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    const int column = static_cast<int>(std::min<size_t>(e.byte, text.size() + 1));
    throw InputError(SourceLoc{path, line, column}, "", "not valid JSON: " + message_of(e));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(SourceLoc{path, line}, "", "not valid JSON: " + message_of(e));
  }
}

}  // namespace strata
