// Reading values from sections parsed by hand rather than through a KindSpec (the `sweep:`
// section, rtl-check files): each failure is an InputError at the value's file and line (or its
// key's, for a missing value) naming the key path.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "sim/config_node.h"

namespace strata {

[[noreturn]] void config_fail(const ConfigNode& n, const std::string& key, const std::string& message);

// A non-empty scalar's text.
const std::string& config_text(const ConfigNode& n, const std::string& key);
// An integer in [lo, hi].
std::int64_t config_integer(const ConfigNode& n, const std::string& key, std::int64_t lo, std::int64_t hi);
// map[name], which must be there (`key` is its path).
const ConfigNode& config_required(const ConfigNode& map, const std::string& name, const std::string& key);
// `map` is a mapping whose keys are all among `allowed`.
void config_only_keys(const ConfigNode& map, const std::string& key, std::initializer_list<const char*> allowed);

}  // namespace strata
