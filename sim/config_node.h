// The configuration tree: YAML content plus where each key and value came from, so that errors
// found after `extends:` merging and command-line overrides still name the right file and line.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "sim/input_error.h"

namespace YAML {
class Node;
}

namespace strata {

class ConfigNode {
 public:
  enum class Type { Null, Scalar, Map, Sequence };

  ConfigNode() = default;
  static ConfigNode scalar(std::string value, SourceLoc loc);
  static ConfigNode map(SourceLoc loc);
  static ConfigNode sequence(std::vector<ConfigNode> items, SourceLoc loc);

  // Parses YAML text; `origin` names the file (or "--set key") in locations. Aliases are
  // expanded: a document that expands to more than kMaxNodes nodes or kMaxBytes of scalars (an
  // alias bomb), an alias inside the node it names (a cycle), and text that is not UTF-8 are
  // InputErrors.
  static ConfigNode parse(const std::string& text, const std::string& origin);
  static constexpr std::size_t kMaxNodes = 1'000'000;
  static constexpr std::size_t kMaxBytes = std::size_t{64} << 20;
  static ConfigNode load_file(const std::string& path);

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::Null; }
  bool is_scalar() const { return type_ == Type::Scalar; }
  bool is_map() const { return type_ == Type::Map; }
  bool is_sequence() const { return type_ == Type::Sequence; }
  const std::string& value() const { return scalar_; }
  const SourceLoc& loc() const { return loc_; }
  // Location of the key this node is stored under (its value location if it has no key).
  const SourceLoc& key_loc() const { return key_loc_.file.empty() ? loc_ : key_loc_; }
  const char* type_name() const;
  void set_key_loc(SourceLoc loc) { key_loc_ = std::move(loc); }
  // Gives this node and everything below it one location (used for command-line overrides).
  void relocate(const SourceLoc& loc);

  // Map access, in insertion order.
  const std::vector<std::pair<std::string, ConfigNode>>& entries() const { return entries_; }
  std::vector<std::pair<std::string, ConfigNode>>& entries() { return entries_; }
  const ConfigNode* find(const std::string& key) const;
  ConfigNode* find(const std::string& key);
  ConfigNode& set(const std::string& key, ConfigNode value);
  bool erase(const std::string& key);

  const std::vector<ConfigNode>& items() const { return items_; }
  std::vector<ConfigNode>& items() { return items_; }

  // Deep merge: maps merge key by key, anything else replaces; a null value in `overlay`
  // removes the key (so a preset's setting can be dropped back to its default).
  void merge(const ConfigNode& overlay);

  // YAML text in insertion order, with a trailing newline.
  std::string to_yaml() const;

 private:
  void emit(void* emitter) const;
  struct Expansion;
  static ConfigNode from_yaml(const YAML::Node& n, Expansion& x);

  Type type_ = Type::Null;
  std::string scalar_;
  std::vector<std::pair<std::string, ConfigNode>> entries_;
  std::vector<ConfigNode> items_;
  SourceLoc loc_;
  SourceLoc key_loc_;
};

}  // namespace strata
