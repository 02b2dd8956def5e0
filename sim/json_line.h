// Reading one JSON value per line (the JSON Lines traces: OpGraph, MoE routing).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace strata {

// The JSON value in `text`, line `line` of `path`. Every nlohmann error becomes an InputError at
// path:line (with the column of a syntax error): malformed JSON, and also numbers too large for
// a double ("1e999"), which nlohmann reports as out_of_range rather than as a parse error.
nlohmann::json parse_json_line(const std::string& text, const std::string& path, int line);

}  // namespace strata
