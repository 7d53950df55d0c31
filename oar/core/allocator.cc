#include "oar/core/allocator.h"

#include <cstdlib>
#include <limits>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "oar/core/error.h"

namespace oar {

namespace {

struct CacheState {
  std::mutex mu;
  std::unordered_map<size_t, std::vector<void*>> free_blocks;  // size class -> cached blocks
  MemoryStats stats;
};

CacheState& state() {
  static CacheState* s = new CacheState();  // never destroyed: tensors may outlive static teardown
  return *s;
}

}  // namespace

CPUAllocator& CPUAllocator::instance() {
  static CPUAllocator a;
  return a;
}

size_t CPUAllocator::round_size(size_t nbytes) {
  if (nbytes <= 4096) return (nbytes + kAlignment - 1) & ~(kAlignment - 1);
  // Above 4 KiB: four size classes per power of two bounds waste to 25%.
  size_t p = 4096;
  while (p * 2 < nbytes) p *= 2;
  const size_t step = p / 4;
  return (nbytes + step - 1) / step * step;
}

// What an empty tensor points at: a real address, so that memcpy/memset of its zero bytes (and
// pointer arithmetic on it) are defined behaviour; nothing is ever read or written there.
alignas(CPUAllocator::kAlignment) static char empty_block[CPUAllocator::kAlignment];

void* CPUAllocator::allocate(size_t nbytes) {
  if (nbytes == 0) return empty_block;
  // round_size doubles up to nbytes: beyond half the address space it would wrap to 0.
  OAR_ENFORCE(nbytes <= (std::numeric_limits<size_t>::max() >> 2), ResourceExhausted,
              "CPUAllocator: out of memory allocating ", nbytes, " bytes");
  const size_t size = round_size(nbytes);
  CacheState& s = state();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    ++s.stats.num_allocs;
    auto it = s.free_blocks.find(size);
    if (it != s.free_blocks.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      ++s.stats.num_cache_hits;
      s.stats.allocated += size;
      s.stats.peak_allocated = std::max(s.stats.peak_allocated, s.stats.allocated);
      return p;
    }
  }
  void* p = std::aligned_alloc(kAlignment, size);
  if (p == nullptr) {
    empty_cache();  // give cached blocks back and try once more
    p = std::aligned_alloc(kAlignment, size);
  }
  OAR_ENFORCE(p != nullptr, ResourceExhausted, "CPUAllocator: out of memory allocating ", size,
              " bytes");
  std::lock_guard<std::mutex> lock(s.mu);
  s.stats.allocated += size;
  s.stats.reserved += size;
  s.stats.peak_allocated = std::max(s.stats.peak_allocated, s.stats.allocated);
  s.stats.peak_reserved = std::max(s.stats.peak_reserved, s.stats.reserved);
  return p;
}

void CPUAllocator::deallocate(void* ptr, size_t nbytes) {
  if (ptr == nullptr || ptr == empty_block) return;
  const size_t size = round_size(nbytes);
  CacheState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.stats.allocated -= size;
  s.free_blocks[size].push_back(ptr);
}

MemoryStats CPUAllocator::stats() const {
  CacheState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.stats;
}

void CPUAllocator::reset_peak() {
  CacheState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.stats.peak_allocated = s.stats.allocated;
  s.stats.peak_reserved = s.stats.reserved;
}

void CPUAllocator::empty_cache() {
  CacheState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  for (auto& [size, blocks] : s.free_blocks) {
    for (void* p : blocks) std::free(p);
    s.stats.reserved -= static_cast<int64_t>(size * blocks.size());
    blocks.clear();
  }
  s.free_blocks.clear();
}

}  // namespace oar
