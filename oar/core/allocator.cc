#include "oar/core/allocator.h"

#include <cstdlib>
#include <limits>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "oar/core/error.h"

namespace oar {

struct CachingAllocator::State {
  std::mutex mu;
  std::unordered_map<size_t, std::vector<void*>> free_blocks;  // size class -> cached blocks
  MemoryStats stats;
};

CachingAllocator::CachingAllocator(std::string name, RawAlloc raw_alloc, RawFree raw_free,
                                   void* zero_block)
    : name_(std::move(name)), raw_alloc_(std::move(raw_alloc)), raw_free_(std::move(raw_free)),
      zero_block_(zero_block), state_(new State()) {}

CachingAllocator::~CachingAllocator() = default;

size_t CachingAllocator::round_size(size_t nbytes) {
  if (nbytes <= 4096) return (nbytes + 63) & ~size_t{63};
  // Above 4 KiB: four size classes per power of two bounds waste to 25%.
  size_t p = 4096;
  while (p * 2 < nbytes) p *= 2;
  const size_t step = p / 4;
  return (nbytes + step - 1) / step * step;
}

void* CachingAllocator::allocate(size_t nbytes) {
  if (nbytes == 0) return zero_block_;
  // round_size doubles up to nbytes: beyond half the address space it would wrap to 0.
  OAR_ENFORCE(nbytes <= (std::numeric_limits<size_t>::max() >> 2), ResourceExhausted, name_,
              ": out of memory allocating ", nbytes, " bytes");
  const size_t size = round_size(nbytes);
  State& s = *state_;
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
  void* p = raw_alloc_(size);
  if (p == nullptr) {
    empty_cache();  // give cached blocks back and try once more
    p = raw_alloc_(size);
  }
  OAR_ENFORCE(p != nullptr, ResourceExhausted, name_, ": out of memory allocating ", size, " bytes");
  std::lock_guard<std::mutex> lock(s.mu);
  s.stats.allocated += size;
  s.stats.reserved += size;
  s.stats.peak_allocated = std::max(s.stats.peak_allocated, s.stats.allocated);
  s.stats.peak_reserved = std::max(s.stats.peak_reserved, s.stats.reserved);
  return p;
}

void CachingAllocator::deallocate(void* ptr, size_t nbytes) {
  if (ptr == nullptr || ptr == zero_block_) return;
  const size_t size = round_size(nbytes);
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  s.stats.allocated -= size;
  s.free_blocks[size].push_back(ptr);
}

MemoryStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->stats;
}

void CachingAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->stats.peak_allocated = state_->stats.allocated;
  state_->stats.peak_reserved = state_->stats.reserved;
}

void CachingAllocator::empty_cache() {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  for (auto& [size, blocks] : s.free_blocks) {
    for (void* p : blocks) raw_free_(p, size);
    s.stats.reserved -= static_cast<int64_t>(size * blocks.size());
    blocks.clear();
  }
  s.free_blocks.clear();
}

namespace {
// What an empty host tensor points at: a real address, so that memcpy/memset of its zero bytes
// (and pointer arithmetic on it) are defined behaviour; nothing is ever read or written there.
alignas(CPUAllocator::kAlignment) char empty_block[CPUAllocator::kAlignment];
}  // namespace

CachingAllocator& CPUAllocator::instance() {
  static CachingAllocator* a = new CachingAllocator(
      "CPUAllocator", [](size_t n) { return std::aligned_alloc(kAlignment, n); },
      [](void* p, size_t) { std::free(p); }, empty_block);
  return *a;
}

}  // namespace oar
