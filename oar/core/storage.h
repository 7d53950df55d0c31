// A reference-counted block of memory shared by a tensor and its views.
#pragma once
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>

#include "oar/core/place.h"

namespace oar { class CachingAllocator; }

namespace oar {

class Storage {
 public:
  // Memory from the place's caching allocator (the host's, or the device backend's).
  explicit Storage(size_t nbytes, Place place = CPUPlace());
  // Memory owned by someone else (NumPy, DLPack); deleter runs when the last tensor goes.
  Storage(void* data, size_t nbytes, Place place, std::function<void(void*)> deleter);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  const Place& place() const { return place_; }
  // True for allocator memory; false for memory borrowed from NumPy/DLPack (someone outside may
  // still read it, so it is never written in place behind their back).
  bool owns_memory() const { return !deleter_; }

  // Bumped by every in-place write; autograd compares it with the value saved at record time.
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  void* data_ = nullptr;
  size_t nbytes_ = 0;
  Place place_;
  std::function<void(void*)> deleter_;  // empty: allocator-owned
  CachingAllocator* allocator_ = nullptr;  // where allocator-owned memory returns
  std::atomic<uint32_t> version_{0};
};

}  // namespace oar
