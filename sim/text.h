// Small string helpers shared by the config, units and CLI code.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

std::string_view trim(std::string_view s);
std::string lower(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);

// A whole file's bytes; empty when it cannot be read.
std::string read_text_file(const std::string& path);

// Levenshtein edit distance.
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` if it is close enough to be a plausible typo (at most a third
// of the word's length in edits, and at least one); used for "did you mean" suggestions.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace strata
