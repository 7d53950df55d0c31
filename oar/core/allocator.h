// A caching allocator: blocks rounded up to size classes, freed blocks kept per class for reuse,
// and statistics as paddle.device's memory queries report them (allocated = live, reserved =
// live + cached, peaks). One instance serves the host (CPUAllocator) and one each device of a
// plug-in backend, over that backend's raw allocate/free (oar/device/device_registry.cc).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace oar {

struct MemoryStats {
  int64_t allocated = 0;       // bytes handed out and not yet returned
  int64_t reserved = 0;        // bytes held from the system (allocated + cached)
  int64_t peak_allocated = 0;
  int64_t peak_reserved = 0;
  int64_t num_allocs = 0;      // calls to allocate
  int64_t num_cache_hits = 0;  // calls served from the cache
};

class CachingAllocator {
 public:
  // raw_alloc returns nullptr when out of memory; zero_block is what a 0-byte request gets.
  using RawAlloc = std::function<void*(size_t)>;
  using RawFree = std::function<void(void*, size_t)>;
  CachingAllocator(std::string name, RawAlloc raw_alloc, RawFree raw_free, void* zero_block);
  ~CachingAllocator();

  // Returns a block of at least nbytes; throws ResourceExhausted when out of memory (after
  // returning the cache to the system and trying once more).
  void* allocate(size_t nbytes);
  void deallocate(void* ptr, size_t nbytes);

  MemoryStats stats() const;
  void reset_peak();
  void empty_cache();  // returns all cached blocks to the system

  // Size class a request is rounded up to (also the key of the cache).
  static size_t round_size(size_t nbytes);

 private:
  struct State;
  std::string name_;
  RawAlloc raw_alloc_;
  RawFree raw_free_;
  void* zero_block_;
  State* state_;  // never freed: tensors may outlive static teardown
};

// The host allocator: 64-byte aligned blocks.
class CPUAllocator {
 public:
  static constexpr size_t kAlignment = 64;
  static CachingAllocator& instance();
  static size_t round_size(size_t nbytes) { return CachingAllocator::round_size(nbytes); }
};

}  // namespace oar
