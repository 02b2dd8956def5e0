// Loads an experiment file: resolves `extends:` chains and applies command-line overrides.
//
// `extends: FILE` (or a list of files) may appear in any mapping. The named files, relative to
// the file that names them, are loaded (recursively resolved), merged in order, and the
// mapping's own keys are merged on top (see ConfigNode::merge). A file that extends itself,
// directly or through others, is an error naming the chain.
#pragma once

#include <string>
#include <vector>

#include "sim/config_node.h"

namespace strata {

ConfigNode load_config(const std::string& path);

// Resolves the extends in a tree that was parsed from `file` (used for overrides and tests).
ConfigNode resolve_extends(ConfigNode node, const std::string& file);

// Applies one "dotted.key.path=value" override. The value is parsed as YAML, so "4", "1.6 GHz",
// "[1, 2]" and "{kind: x}" all work. Intermediate mappings are created as needed; a numeric
// component indexes into a list.
void apply_override(ConfigNode& root, const std::string& assignment);

// Sets `value` at a dotted key path (as apply_override does, replacing what was there);
// `origin` locates errors.
void set_config_path(ConfigNode& root, const std::string& key_path, ConfigNode value, const SourceLoc& origin);

// The node at a dotted key path, or nullptr.
const ConfigNode* find_config_path(const ConfigNode& root, const std::string& key_path);

}  // namespace strata
