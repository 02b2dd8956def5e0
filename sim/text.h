// Small string helpers shared by the config, units and CLI code.
#pragma once

#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strata {

std::string_view trim(std::string_view s);
std::string lower(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);

// Reads one line, as std::getline does, but a line may end in LF, CR LF or a lone CR (old Mac
// files and some exports), and the ending is not kept: a file of CR-only endings is many lines,
// not one. False at the end of input when nothing was read. `consumed`, when given, is set to
// the bytes taken from the stream, the line ending included (for progress by file position).
bool read_line(std::istream& in, std::string& line, std::size_t* consumed = nullptr);

// A whole file's bytes; empty when it cannot be read.
std::string read_text_file(const std::string& path);

// The offset of the first byte that does not belong to well-formed UTF-8 (overlong forms,
// surrogates and code points past U+10FFFF included), or nullopt when all of `s` is UTF-8.
std::optional<size_t> first_invalid_utf8(std::string_view s);

// The offset of the first control byte (below 0x20, or 0x7F: tabs and line ends included), or
// nullopt; for names and labels that must be one line of plain text.
std::optional<size_t> first_control_char(std::string_view s);

// 1-based line and column of byte `offset` in `text`; a lone CR, CR LF and LF each end a line.
std::pair<int, int> line_and_column(std::string_view text, size_t offset);

// `s` made fit for one line of an error message: control bytes and bytes that are not UTF-8
// shown as \xNN, and anything past `max_bytes` cut with a note of how much was left out (a
// 50 MB token must not be echoed whole).
std::string printable(std::string_view s, size_t max_bytes = 200);

// Levenshtein edit distance.
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` if it is close enough to be a plausible typo (at most a third
// of the word's length in edits, and at least one); used for "did you mean" suggestions.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

// `s` as one CSV field: quoted (with doubled quotes) when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& s);

}  // namespace strata
