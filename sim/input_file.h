// Opening a file the user named as input (a trace, a graph, a kernel list, a config): one place
// that turns every way the file can fail to be read into one line naming it. Opening is not
// enough: a directory, /proc/self/mem or a device opens fine and then fails on the first read,
// where libstdc++ throws std::ios_base::failure (an internal error to the user).
#pragma once

#include <fstream>
#include <string>

#include "sim/input_error.h"

namespace strata {

// Opens `path` into `in` (binary) and reads its first byte back, so a file that cannot be read
// fails here with InputError(loc, key, "cannot open|read <what>: <reason>"); `loc` defaults to
// the file itself.
void open_input_file(std::ifstream& in, const std::string& path, const std::string& what, const SourceLoc& loc = {},
                     const std::string& key = "");

}  // namespace strata
