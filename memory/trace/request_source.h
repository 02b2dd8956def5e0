// The one interface every memory-request front end implements: trace readers (any format) and
// synthetic generators hand requests, in issue order, to the TracePlayer through it.
#pragma once

#include <cstdint>
#include <optional>

namespace strata {

struct MemoryRequest {
  std::uint64_t cycle = 0;  // issue cycle in the front end's clock; never decreases along a source
  bool write = false;
  std::uint64_t address = 0;
  std::uint32_t bytes = 0;
};

class RequestSource {
 public:
  virtual ~RequestSource() = default;
  // The next request, or nullopt at the end. Throws InputError on bad input.
  virtual std::optional<MemoryRequest> next() = 0;
  // Fraction of the source consumed, in [0, 1].
  virtual double progress() const = 0;
};

}  // namespace strata
