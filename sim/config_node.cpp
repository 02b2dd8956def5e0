#include "sim/config_node.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/input_file.h"
#include "sim/text.h"

namespace strata {
namespace {

SourceLoc loc_of(const YAML::Mark& m, const std::string& origin) {
  if (m.is_null()) return SourceLoc{origin, 0, 0};
  return SourceLoc{origin, m.line + 1, m.column + 1};
}

}  // namespace

ConfigNode ConfigNode::scalar(std::string value, SourceLoc loc) {
  ConfigNode n;
  n.type_ = Type::Scalar;
  n.scalar_ = std::move(value);
  n.loc_ = std::move(loc);
  return n;
}

ConfigNode ConfigNode::map(SourceLoc loc) {
  ConfigNode n;
  n.type_ = Type::Map;
  n.loc_ = std::move(loc);
  return n;
}

ConfigNode ConfigNode::sequence(std::vector<ConfigNode> items, SourceLoc loc) {
  ConfigNode n;
  n.type_ = Type::Sequence;
  n.items_ = std::move(items);
  n.loc_ = std::move(loc);
  return n;
}

const char* ConfigNode::type_name() const {
  switch (type_) {
    case Type::Null: return "null";
    case Type::Scalar: return "a scalar";
    case Type::Map: return "a mapping";
    case Type::Sequence: return "a list";
  }
  return "?";
}

// What one parse has expanded so far: aliases share nodes in yaml-cpp's graph, and a copy of
// each is made here, so the size of the result, not of the text, is what is bounded.
struct ConfigNode::Expansion {
  std::string origin;
  std::size_t nodes = 0;
  std::size_t bytes = 0;
  std::vector<YAML::Node> ancestors;  // the collections being expanded, outermost first
};

ConfigNode ConfigNode::from_yaml(const YAML::Node& n, Expansion& x) {
  ConfigNode out;
  out.loc_ = loc_of(n.Mark(), x.origin);
  if (++x.nodes > kMaxNodes)
    throw InputError(out.loc_, "", fmt::format("the YAML expands to more than {} nodes (aliases repeated inside aliases?)", kMaxNodes));
  if (n.IsSequence() || n.IsMap()) {
    // An alias inside the node it names makes the graph a cycle: its expansion never ends.
    for (const YAML::Node& a : x.ancestors)
      if (a.is(n)) throw InputError(out.loc_, "", "a YAML alias refers to a node that contains it (an endless expansion)");
    x.ancestors.push_back(n);
  }
  switch (n.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out.type_ = Type::Null;
      break;
    case YAML::NodeType::Scalar:
      out.type_ = Type::Scalar;
      out.scalar_ = n.Scalar();
      x.bytes += out.scalar_.size();
      if (x.bytes > kMaxBytes)
        throw InputError(out.loc_, "", fmt::format("the YAML expands to more than {} MiB of text (aliases repeated inside aliases?)", kMaxBytes >> 20));
      break;
    case YAML::NodeType::Sequence:
      out.type_ = Type::Sequence;
      for (const auto& item : n) out.items_.push_back(from_yaml(item, x));
      break;
    case YAML::NodeType::Map:
      out.type_ = Type::Map;
      for (const auto& kv : n) {
        const SourceLoc key_loc = loc_of(kv.first.Mark(), x.origin);
        if (!kv.first.IsScalar()) throw InputError(key_loc, "", "mapping keys must be plain names");
        const std::string key = kv.first.Scalar();
        if (out.find(key)) throw InputError(key_loc, key, "duplicate key");
        ConfigNode child = from_yaml(kv.second, x);
        // A key with no value ("key:") has no mark of its own; point at the key.
        if (child.loc_.line == 0) child.loc_ = key_loc;
        child.key_loc_ = key_loc;
        out.entries_.emplace_back(key, std::move(child));
      }
      break;
  }
  if (n.IsSequence() || n.IsMap()) x.ancestors.pop_back();
  return out;
}

ConfigNode ConfigNode::parse(const std::string& text, const std::string& origin) {
  // yaml-cpp passes any bytes through, and a name that is not UTF-8 would only fail when the
  // results are written as JSON.
  require_utf8(text, origin);
  try {
    Expansion x;
    x.origin = origin;
    return from_yaml(YAML::Load(text), x);
  } catch (const YAML::Exception& e) {
    // e.msg is yaml-cpp's message without its own "line x, column y" prefix.
    throw InputError(loc_of(e.mark, origin), "", "malformed YAML: " + e.msg);
  }
}

ConfigNode ConfigNode::load_file(const std::string& path) {
  std::ifstream in;
  open_input_file(in, path, "file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

void ConfigNode::relocate(const SourceLoc& loc) {
  loc_ = loc;
  key_loc_ = loc;
  for (auto& [k, v] : entries_) v.relocate(loc);
  for (auto& item : items_) item.relocate(loc);
}

const ConfigNode* ConfigNode::find(const std::string& key) const {
  for (const auto& [k, v] : entries_)
    if (k == key) return &v;
  return nullptr;
}

ConfigNode* ConfigNode::find(const std::string& key) {
  for (auto& [k, v] : entries_)
    if (k == key) return &v;
  return nullptr;
}

ConfigNode& ConfigNode::set(const std::string& key, ConfigNode value) {
  if (type_ != Type::Map) {
    type_ = Type::Map;
    scalar_.clear();
    items_.clear();
  }
  if (ConfigNode* existing = find(key)) {
    SourceLoc key_loc = existing->key_loc_;
    *existing = std::move(value);
    if (existing->key_loc_.file.empty()) existing->key_loc_ = key_loc;
    return *existing;
  }
  entries_.emplace_back(key, std::move(value));
  return entries_.back().second;
}

bool ConfigNode::erase(const std::string& key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == key) {
      entries_.erase(it);
      return true;
    }
  }
  return false;
}

void ConfigNode::merge(const ConfigNode& overlay) {
  if (!(is_map() && overlay.is_map())) {
    *this = overlay;
    return;
  }
  for (const auto& [key, value] : overlay.entries_) {
    if (value.is_null()) {
      erase(key);
      continue;
    }
    ConfigNode* mine = find(key);
    if (mine && mine->is_map() && value.is_map()) {
      mine->merge(value);
      mine->key_loc_ = value.key_loc_;
    } else {
      set(key, value);
    }
  }
}

void ConfigNode::emit(void* e) const {
  auto& out = *static_cast<YAML::Emitter*>(e);
  switch (type_) {
    case Type::Null:
      out << YAML::Null;
      break;
    case Type::Scalar:
      out << scalar_;
      break;
    case Type::Sequence:
      out << YAML::BeginSeq;
      for (const auto& item : items_) item.emit(e);
      out << YAML::EndSeq;
      break;
    case Type::Map:
      out << YAML::BeginMap;
      for (const auto& [k, v] : entries_) {
        out << YAML::Key << k << YAML::Value;
        v.emit(e);
      }
      out << YAML::EndMap;
      break;
  }
}

std::string ConfigNode::to_yaml() const {
  YAML::Emitter out;
  emit(&out);
  return std::string(out.c_str()) + "\n";
}

}  // namespace strata
