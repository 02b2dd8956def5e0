// The stimulus and event files shared by rtl-check and the runner:
//   stimulus  "offer STREAM CYCLE LAST HEX": a beat offered from CYCLE on (valid until it fires;
//             beats of a stream in order); "stall STREAM CYCLE": an output's ready is low
//   events    "fire STREAM CYCLE LAST HEX" per handshake; "end CYCLES SECONDS"
// HEX is the stream's packed data (element 0 in the low bits), most significant digit first.
#pragma once

#include <string>
#include <vector>

#include "rtl/reference_model.h"

namespace strata {

std::string pack_hex(const Beat& beat, const StreamDecl& d);
Beat unpack_hex(const std::string& hex, const StreamDecl& d, bool last);

void write_stimulus(const std::string& path, const Stimulus& s, const std::vector<StreamDecl>& streams);
// Throws InputError (file and line) for a malformed line or an unknown stream.
Stimulus read_stimulus(const std::string& path, const std::vector<StreamDecl>& streams);

void write_events(const std::string& path, const std::vector<Fire>& fires, const std::vector<StreamDecl>& streams);
std::vector<Fire> read_events(const std::string& path, const std::vector<StreamDecl>& streams);

}  // namespace strata
