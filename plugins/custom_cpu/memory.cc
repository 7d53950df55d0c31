// Registries of device and pinned host blocks; see memory.h for the contract.
#include "plugins/custom_cpu/memory.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>

namespace oar_custom_cpu {
namespace {

constexpr size_t kAlignment = 256;  // as cudaMalloc: enough for any vector load
constexpr size_t kGuardBytes = 64;
constexpr unsigned char kGuardByte = 0xAB;
constexpr unsigned char kJunkByte = 0xCD;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

std::string hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

// The block in `blocks` that holds [p, p + n), or end().
template <typename Map>
typename Map::const_iterator find_block(const Map& blocks, uintptr_t p) {
  auto it = blocks.upper_bound(p);
  if (it == blocks.begin()) return blocks.end();
  return std::prev(it);
}

}  // namespace

OarStatus DeviceMemory::allocate(int device, size_t nbytes, void** ptr, std::string* error) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (nbytes > kTotalBytes - used_[device]) {
      *error = "out of memory on custom_cpu:" + std::to_string(device) + ": " +
               std::to_string(nbytes) + " bytes requested, " +
               std::to_string(kTotalBytes - used_[device]) + " free";
      return OAR_STATUS_OUT_OF_MEMORY;
    }
    used_[device] += nbytes;  // reserved now, so two threads cannot both take the last bytes
  }
  auto* p = static_cast<unsigned char*>(std::aligned_alloc(kAlignment, round_up(nbytes + kGuardBytes, kAlignment)));
  if (p == nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    used_[device] -= nbytes;
    *error = "the host could not back " + std::to_string(nbytes) + " bytes of custom_cpu memory";
    return OAR_STATUS_OUT_OF_MEMORY;
  }
  std::memset(p, kJunkByte, nbytes);
  std::memset(p + nbytes, kGuardByte, kGuardBytes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    blocks_[reinterpret_cast<uintptr_t>(p)] = Block{device, nbytes};
  }
  *ptr = p;
  return OAR_STATUS_OK;
}

OarStatus DeviceMemory::deallocate(int device, void* ptr, size_t nbytes, std::string* error) {
  Block block;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = blocks_.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == blocks_.end()) {
      *error = "deallocate: " + hex(ptr) +
               " is not the start of a live custom_cpu allocation";
      return OAR_STATUS_ERROR;
    }
    if (it->second.device != device || it->second.nbytes != nbytes) {
      *error = "deallocate: the block was allocated on custom_cpu:" +
               std::to_string(it->second.device) + " with " + std::to_string(it->second.nbytes) +
               " bytes, freed on custom_cpu:" + std::to_string(device) + " with " +
               std::to_string(nbytes) + " bytes";
      return OAR_STATUS_ERROR;
    }
    block = it->second;
    blocks_.erase(it);
    used_[device] -= block.nbytes;
  }
  const auto* guard = static_cast<unsigned char*>(ptr) + block.nbytes;
  bool intact = true;
  for (size_t i = 0; i < kGuardBytes; ++i) intact = intact && guard[i] == kGuardByte;
  std::free(ptr);
  if (!intact) {
    *error = "deallocate: something wrote past the end of a " + std::to_string(block.nbytes) +
             "-byte block on custom_cpu:" + std::to_string(device);
    return OAR_STATUS_ERROR;
  }
  return OAR_STATUS_OK;
}

bool DeviceMemory::contains(int device, const void* ptr, size_t nbytes) const {
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = find_block(blocks_, p);
  if (it == blocks_.end() || it->second.device != device) return false;
  const uintptr_t end = it->first + it->second.nbytes;
  return p <= end && nbytes <= end - p;
}

size_t DeviceMemory::used_bytes(int device) const {
  std::lock_guard<std::mutex> lock(mu_);
  return used_[device];
}

OarStatus PinnedMemory::allocate(size_t nbytes, void** ptr, std::string* error) {
  void* p = std::aligned_alloc(kAlignment, round_up(nbytes == 0 ? 1 : nbytes, kAlignment));
  if (p == nullptr) {
    *error = "host_allocate: " + std::to_string(nbytes) + " bytes unavailable";
    return OAR_STATUS_OUT_OF_MEMORY;
  }
  std::lock_guard<std::mutex> lock(mu_);
  blocks_[reinterpret_cast<uintptr_t>(p)] = nbytes;
  *ptr = p;
  return OAR_STATUS_OK;
}

OarStatus PinnedMemory::deallocate(void* ptr, size_t nbytes, std::string* error) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = blocks_.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == blocks_.end() || it->second != nbytes) {
      *error = "host_deallocate: not a live pinned block of " + std::to_string(nbytes) + " bytes";
      return OAR_STATUS_ERROR;
    }
    blocks_.erase(it);
  }
  std::free(ptr);
  return OAR_STATUS_OK;
}

bool PinnedMemory::contains(const void* ptr, size_t nbytes) const {
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = find_block(blocks_, p);
  if (it == blocks_.end()) return false;
  const uintptr_t end = it->first + it->second;
  return p <= end && nbytes <= end - p;
}

}  // namespace oar_custom_cpu
