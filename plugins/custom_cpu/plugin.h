// What the parts of the custom_cpu plug-in share: the device type's constants, the stream a
// kernel or copy runs on, the device-memory range check and error logging.
// Contract: everything here is internal to liboar_custom_cpu.so; oar sees only the C ABI of
// oar/device/device_ext.h (oar_plugin_init and the function tables it registers).
#pragma once

#include <cstddef>
#include <memory>

#include "oar/device/device_ext.h"

namespace oar_custom_cpu {

inline constexpr const char* kDeviceType = "custom_cpu";
inline constexpr int kDeviceCount = 2;

class Stream;

// The stream that work for `device` runs on: `stream` itself, or the device's default stream
// when it is NULL. nullptr when the handle is unknown or belongs to another device.
std::shared_ptr<Stream> resolve_stream(int device, OarStream stream);

// True when [ptr, ptr + nbytes) lies inside one live allocation of `device`.
bool is_device_range(int device, const void* ptr, size_t nbytes);

// Writes "oar_custom_cpu: <message>" to stderr: the device functions have no error buffer, so
// this is the only place a reason for OAR_STATUS_ERROR can go.
void log_error(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Registers every kernel (kernels.cc); the first failing registration's status is returned.
OarStatus register_kernels(const OarRegistrar* registrar);

}  // namespace oar_custom_cpu
