// The device backends: every device type a plug-in registered through the C ABI
// (oar/device/device_ext.h), its kernels, one caching allocator and one current stream per device.
// The host (cpu, gpu_pinned) is not a backend here: its memory comes from CPUAllocator and its
// kernels are oar's own (oar/kernels/cpu), called directly by the generated ops.
//
// Plug-ins are loaded once, before first use: the CUDA backend (liboar_cuda.so beside liboar.so)
// when present, every lib*.so in OAR_CUSTOM_DEVICE_ROOT, and any named by load_plugin. Lookups
// after that take no lock.
#pragma once
#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "oar/core/allocator.h"
#include "oar/core/dtype.h"
#include "oar/core/place.h"
#include "oar/device/device_ext.h"

namespace oar::device {

struct Backend {
  std::string name;                 // "gpu", "custom_cpu", ...
  OarDeviceInterface api{};         // a copy of what the plug-in registered
  std::string library;              // the plug-in's file
  int count = 0;                    // devices present
  std::unordered_map<std::string, std::array<OarKernelFn, kNumDTypes>> kernels;
  std::vector<std::unique_ptr<CachingAllocator>> allocators;  // per device id
  std::vector<OarStream> current_streams;                     // per device id (null: default)
};

// Loads the plug-ins found at start (idempotent; called by every lookup below).
void initialize();
// Loads one plug-in library; throws External naming the file when it cannot be loaded or its
// registration fails. Loading the same file twice does nothing.
void load_plugin(const std::string& path);

// The backend of a device type, or nullptr when none is registered.
Backend* find_backend(const std::string& device_type);
// The backend serving `place`; throws Unavailable-style errors naming `what` when the device type
// has no backend (a build without CUDA, a plug-in not loaded) or the device id is out of range.
Backend& backend_of(const Place& place, const char* what);
std::vector<std::string> device_types();  // registered backends, e.g. {"custom_cpu", "gpu"}
int device_count(const std::string& device_type);  // 0 when not registered

// Memory on a place (host places included), through that place's caching allocator.
CachingAllocator& allocator(const Place& place);
void* allocate(const Place& place, size_t nbytes);
void deallocate(const Place& place, void* ptr, size_t nbytes);

// Copies nbytes between any two places. A copy to the host first waits for all work queued on
// the source device (any stream); a copy to a device is ordered after the work on its current
// stream. Returns once the bytes can be read at the destination by host code and the source may
// be reused (a device-to-device copy on one device stays asynchronous, on the current stream).
void copy_bytes(const Place& dst_place, void* dst, const Place& src_place, const void* src,
                size_t nbytes);

// Waits for all work queued on the place's device (no-op for host places).
void synchronize(const Place& place);
OarStream current_stream(const Place& place);
void set_current_stream(const Place& place, OarStream stream);

// Throws an error naming `what` and the backend unless status is OK.
void check(OarStatus status, const Backend& backend, const char* what);

// The kernel a backend registered for (op, dtype), or nullptr.
OarKernelFn find_kernel(const Backend& backend, const std::string& op, DType dtype);

}  // namespace oar::device
