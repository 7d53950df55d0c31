// A caching CPU allocator: 64-byte aligned blocks, freed blocks kept per size class for reuse.
// Statistics follow paddle.device's memory queries: allocated (live), reserved (live + cached), peaks.
#pragma once
#include <cstddef>
#include <cstdint>

namespace oar {

struct MemoryStats {
  int64_t allocated = 0;       // bytes handed out and not yet returned
  int64_t reserved = 0;        // bytes held from the system (allocated + cached)
  int64_t peak_allocated = 0;
  int64_t peak_reserved = 0;
  int64_t num_allocs = 0;      // calls to allocate
  int64_t num_cache_hits = 0;  // calls served from the cache
};

class CPUAllocator {
 public:
  static constexpr size_t kAlignment = 64;
  static CPUAllocator& instance();

  // Returns a block of at least nbytes (for 0, one shared empty block that is never read or
  // written); throws ResourceExhausted when out of memory.
  void* allocate(size_t nbytes);
  void deallocate(void* ptr, size_t nbytes);

  MemoryStats stats() const;
  void reset_peak();
  void empty_cache();  // returns all cached blocks to the system

  // Size class a request is rounded up to (also the key of the cache).
  static size_t round_size(size_t nbytes);
};

}  // namespace oar
