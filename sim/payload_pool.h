// Recycled TLM-2.0 generic payloads for an initiator that is its own memory manager: payloads
// of type T (a tlm_generic_payload subclass carrying the initiator's bookkeeping) are made on
// demand and reused after the target releases them, so a run allocates only as many as are
// ever in flight at once.
#pragma once

#include <memory>
#include <vector>

#include <tlm>

namespace strata {

template <class T>
class PayloadPool {
 public:
  explicit PayloadPool(tlm::tlm_mm_interface* mm) : mm_(mm) {}

  T* allocate() {
    if (free_.empty()) {
      all_.push_back(std::make_unique<T>(mm_));
      free_.push_back(all_.back().get());
    }
    T* p = free_.back();
    free_.pop_back();
    return p;
  }
  // From the initiator's tlm_mm_interface::free(): clears the payload and keeps it for reuse.
  void recycle(tlm::tlm_generic_payload* gp) {
    gp->reset();  // drops extensions; the initiator sets every field again on reuse
    free_.push_back(static_cast<T*>(gp));
  }

 private:
  tlm::tlm_mm_interface* mm_;
  std::vector<std::unique_ptr<T>> all_;
  std::vector<T*> free_;
};

}  // namespace strata
