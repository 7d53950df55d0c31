// Memory of the custom_cpu devices, kept apart from every other allocation in the process.
// Contract:
// - DeviceMemory registers each block with its device and size: freeing an unknown pointer, a
//   block of another device or with a different size is an error, and kernels and copies check
//   that the device pointers they are given lie inside a live block of their device (so a
//   host pointer handed to the device is caught, as an accelerator would fault on it);
// - each device has a nominal capacity (kTotalBytes); allocations past it are out of memory;
// - a new block is filled with junk (real device memory is not zeroed) and followed by guard
//   bytes, checked when it is freed, to catch kernels that write past the end;
// - PinnedMemory is plain aligned host memory standing in for page-locked memory; copies from
//   and to it are truly asynchronous (see device.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include "oar/device/device_ext.h"
#include "plugins/custom_cpu/plugin.h"

namespace oar_custom_cpu {

class DeviceMemory {
 public:
  static constexpr size_t kTotalBytes = size_t{8} << 30;  // 8 GiB per device, nominal

  // On failure *error says why.
  OarStatus allocate(int device, size_t nbytes, void** ptr, std::string* error);
  OarStatus deallocate(int device, void* ptr, size_t nbytes, std::string* error);
  bool contains(int device, const void* ptr, size_t nbytes) const;
  size_t used_bytes(int device) const;

 private:
  struct Block {
    int device;
    size_t nbytes;  // as requested; the guard bytes follow
  };
  mutable std::mutex mu_;
  std::map<uintptr_t, Block> blocks_;  // by start address, to find the block holding a pointer
  size_t used_[kDeviceCount] = {};
};

class PinnedMemory {
 public:
  OarStatus allocate(size_t nbytes, void** ptr, std::string* error);
  OarStatus deallocate(void* ptr, size_t nbytes, std::string* error);
  bool contains(const void* ptr, size_t nbytes) const;

 private:
  mutable std::mutex mu_;
  std::map<uintptr_t, size_t> blocks_;  // start address -> size
};

}  // namespace oar_custom_cpu
