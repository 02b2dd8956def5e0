#include "sim/config_loader.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "sim/text.h"

namespace fs = std::filesystem;

namespace strata {
namespace {

constexpr const char* kExtendsKey = "extends";

std::string normalized(const fs::path& p) {
  std::error_code ec;
  const fs::path canon = fs::weakly_canonical(p, ec);
  return (ec ? p.lexically_normal() : canon).string();
}

// One resolution's files: the chain being resolved (for cycles) and every file already resolved,
// so that a file reached by several paths (a diamond of presets) is read and resolved once: the
// work stays linear in the number of files, not in the number of paths through them.
struct Resolution {
  std::vector<std::string> chain;
  std::map<std::string, ConfigNode> done;
};

ConfigNode resolve(ConfigNode node, const std::string& file, Resolution& r);

ConfigNode load_resolved(const std::string& path, const SourceLoc& from, Resolution& r) {
  const std::string id = normalized(path);
  std::vector<std::string>& chain = r.chain;
  if (std::find(chain.begin(), chain.end(), id) != chain.end()) {
    std::string cycle;
    for (const auto& c : chain) cycle += fs::path(c).filename().string() + " -> ";
    cycle += fs::path(id).filename().string();
    throw InputError(from, kExtendsKey, "extends cycle: " + cycle);
  }
  // A file resolved before resolved without meeting the chain's files (it would have met a
  // cycle through them), so its result holds here too.
  if (const auto it = r.done.find(id); it != r.done.end()) return it->second;
  // error_code overload: the throwing one raises filesystem_error (not InputError) for a name too
  // long for the OS (ENAMETOOLONG), found by tests/fuzz (regressions/experiment/).
  std::error_code file_ec;
  if (!fs::is_regular_file(path, file_ec)) {
    throw InputError(from, kExtendsKey, fmt::format("cannot open \"{}\"", path));
  }
  chain.push_back(id);
  ConfigNode result = resolve(ConfigNode::load_file(path), path, r);
  chain.pop_back();
  r.done.emplace(id, result);
  return result;
}

ConfigNode resolve(ConfigNode node, const std::string& file, Resolution& r) {
  if (node.is_sequence()) {
    for (auto& item : node.items()) item = resolve(std::move(item), file, r);
    return node;
  }
  if (!node.is_map()) return node;
  // Children first, so a nested `extends:` is complete before this level merges over a base.
  ConfigNode own = ConfigNode::map(node.loc());
  const ConfigNode* extends = nullptr;
  for (const auto& [key, value] : node.entries()) {
    if (key == kExtendsKey) {
      extends = &value;
      continue;
    }
    ConfigNode child = resolve(value, file, r);
    child.set_key_loc(value.key_loc());
    own.set(key, std::move(child));
  }
  if (!extends) return own;

  std::vector<const ConfigNode*> bases;
  if (extends->is_scalar()) {
    bases.push_back(extends);
  } else if (extends->is_sequence()) {
    for (const auto& item : extends->items()) {
      if (!item.is_scalar()) throw InputError(item.loc(), kExtendsKey, "expected a file name");
      bases.push_back(&item);
    }
  } else {
    throw InputError(extends->loc(), kExtendsKey, "expected a file name or a list of file names");
  }
  const fs::path dir = fs::path(file).parent_path();
  ConfigNode merged = ConfigNode::map(node.loc());
  for (const ConfigNode* base : bases) {
    const std::string target = (dir / base->value()).string();
    ConfigNode loaded = load_resolved(target, base->loc(), r);
    if (!loaded.is_map())
      throw InputError(base->loc(), kExtendsKey, fmt::format("\"{}\" does not hold a mapping", base->value()));
    merged.merge(loaded);
  }
  merged.merge(own);
  return merged;
}

}  // namespace

ConfigNode resolve_extends(ConfigNode node, const std::string& file) {
  Resolution r;
  r.chain.push_back(normalized(file));
  return resolve(std::move(node), file, r);
}

ConfigNode load_config(const std::string& path) {
  // error_code overload: the throwing one raises filesystem_error (not InputError) for a name too
  // long for the OS (ENAMETOOLONG), found by tests/fuzz (regressions/experiment/).
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(SourceLoc{path}, "", "no such file");
  if (!fs::is_regular_file(path, ec)) throw InputError(SourceLoc{path}, "", "not a regular file");
  return resolve_extends(ConfigNode::load_file(path), path);
}

void apply_override(ConfigNode& root, const std::string& assignment) {
  const std::string origin = "--set " + assignment;
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError(SourceLoc{origin}, "", "expected key.path=value");
  const std::string key_path(trim(std::string_view(assignment).substr(0, eq)));
  ConfigNode value = ConfigNode::parse(assignment.substr(eq + 1), origin);
  value.relocate(SourceLoc{origin});
  if (value.is_null() && trim(std::string_view(assignment).substr(eq + 1)).empty())
    throw InputError(SourceLoc{origin}, key_path, "missing value after '='");
  set_config_path(root, key_path, std::move(value), SourceLoc{origin});
}

void set_config_path(ConfigNode& root, const std::string& key_path, ConfigNode value, const SourceLoc& origin) {
  const std::vector<std::string> keys = split(key_path, '.');
  for (const auto& k : keys)
    if (k.empty()) throw InputError(origin, key_path, "empty component in key path");
  ConfigNode* node = &root;
  std::string walked;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string& k = keys[i];
    walked += (walked.empty() ? "" : ".") + k;
    const bool last = i + 1 == keys.size();
    if (node->is_sequence()) {
      size_t index = 0;
      try {
        index = std::stoul(k);
      } catch (const std::exception&) {
        throw InputError(origin, walked, "is a list; expected a numeric index");
      }
      if (index >= node->items().size())
        throw InputError(origin, walked, fmt::format("index out of range (the list has {} items)", node->items().size()));
      if (last) {
        node->items()[index] = std::move(value);
        return;
      }
      node = &node->items()[index];
      continue;
    }
    if (!node->is_map() && !node->is_null())
      throw InputError(origin, walked, fmt::format("cannot set a key inside {}", node->type_name()));
    if (last) {
      value.set_key_loc(origin);
      node->set(k, std::move(value));
      return;
    }
    ConfigNode* next = node->find(k);
    if (!next) next = &node->set(k, ConfigNode::map(origin));
    node = next;
  }
}

const ConfigNode* find_config_path(const ConfigNode& root, const std::string& key_path) {
  const ConfigNode* node = &root;
  for (const auto& k : split(key_path, '.')) {
    if (node->is_map()) {
      node = node->find(k);
    } else if (node->is_sequence()) {
      char* end = nullptr;
      const unsigned long index = std::strtoul(k.c_str(), &end, 10);
      if (k.empty() || *end != '\0' || index >= node->items().size()) return nullptr;
      node = &node->items()[index];
    } else {
      return nullptr;
    }
    if (!node) return nullptr;
  }
  return node;
}

}  // namespace strata
