// The "gpu" device interface of the plug-in: devices, memory, streams, events and copies over the
// CUDA runtime.
//
// Contract (from oar/device/device_ext.h): a NULL stream means the device's default stream and a
// synchronous call. The default stream is one non-blocking stream per device created on first
// use, not the legacy NULL stream, so oar's work never serialises with other libraries' legacy
// stream work. Events are created with timing enabled (elapsed_time works). Without a driver or
// GPU the library still loads and device_count() is 0. CUDA errors become OAR_STATUS_ERROR
// (OUT_OF_MEMORY for cudaErrorMemoryAllocation).
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "plugins/cuda/common.h"
#include "plugins/cuda/kernels.h"

namespace oar_cuda {
namespace {

struct DeviceState {
  std::once_flag pool_once;
  std::once_flag stream_once;
  cudaStream_t stream = nullptr;
  cudaError_t stream_err = cudaSuccess;
  std::once_flag info_once;
  int sms = 1;
  std::string name;
  size_t total_memory = 0;
  int major = 0, minor = 0;
};

DeviceState* state(int device) {
  static const std::unique_ptr<DeviceState[]> states(new DeviceState[device_count() + 1]);
  if (device < 0 || device >= device_count()) return nullptr;
  return &states[device];
}

void load_info(int device, DeviceState* s) {
  std::call_once(s->info_once, [&] {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
      s->name = prop.name;
      s->sms = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
      s->total_memory = prop.totalGlobalMem;
      s->major = prop.major;
      s->minor = prop.minor;
    } else {
      cudaGetLastError();
      s->name = "NVIDIA GPU";
    }
  });
}

inline cudaError_t bad_device() { return cudaErrorInvalidDevice; }

// Resolves the stream argument of the interface: NULL -> the default stream, and whether the
// call must synchronise before it returns.
cudaError_t resolve(int device, OarStream stream, cudaStream_t* out, bool* sync) {
  *sync = stream == nullptr;
  if (stream) {
    *out = reinterpret_cast<cudaStream_t>(stream);
    return cudaSuccess;
  }
  return default_stream(device, out);
}

}  // namespace

int device_count() {
  static const int count = [] {
    int n = 0;
    // No driver or no GPU: an error here simply means no devices.
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      n = 0;
    }
    return n;
  }();
  return count;
}

cudaError_t ensure_device(int device) {
  int current = -1;
  // cudaGetDevice is a cheap thread-local read; checking it (rather than caching our own view)
  // stays right when another library in the process switches devices.
  if (cudaGetDevice(&current) == cudaSuccess && current == device) return cudaSuccess;
  if (!state(device)) return bad_device();
  return cudaSetDevice(device);
}

cudaError_t default_stream(int device, cudaStream_t* stream) {
  DeviceState* s = state(device);
  if (!s) return bad_device();
  std::call_once(s->stream_once, [&] {
    int previous = -1;
    cudaGetDevice(&previous);
    s->stream_err = cudaSetDevice(device);
    if (s->stream_err == cudaSuccess)
      s->stream_err = cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking);
    if (previous >= 0 && previous != device) cudaSetDevice(previous);
  });
  *stream = s->stream;
  return s->stream_err;
}

cudaError_t scratch_alloc(int device, void** ptr, size_t nbytes, cudaStream_t stream) {
  DeviceState* s = state(device);
  if (!s) return bad_device();
  std::call_once(s->pool_once, [&] {
    // The pool's default release threshold is 0: every synchronisation would hand its memory
    // back to the driver and the next scratch allocation would map it again.
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
      uint64_t keep = uint64_t{64} << 20;
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    cudaGetLastError();
  });
  return cudaMallocAsync(ptr, nbytes, stream);
}

void scratch_free(void* ptr, cudaStream_t stream) {
  if (ptr && cudaFreeAsync(ptr, stream) != cudaSuccess) cudaGetLastError();
}

int sm_count(int device) {
  DeviceState* s = state(device);
  if (!s) return 1;
  load_info(device, s);
  return s->sms;
}

namespace {

// ---- the interface functions ------------------------------------------------------------------

int dev_count() { return device_count(); }

OarStatus set_device(int device) { return to_status(ensure_device(device), "set_device"); }

OarStatus allocate(int device, size_t nbytes, void** ptr) {
  *ptr = nullptr;
  if (nbytes == 0) return OAR_STATUS_OK;
  cudaError_t err = ensure_device(device);
  if (err == cudaSuccess) err = cudaMalloc(ptr, nbytes);
  return to_status(err, "cudaMalloc");
}

OarStatus deallocate(int device, void* ptr, size_t) {
  if (!ptr) return OAR_STATUS_OK;
  cudaError_t err = ensure_device(device);
  if (err == cudaSuccess) err = cudaFree(ptr);
  return to_status(err, "cudaFree");
}

OarStatus host_allocate(int device, size_t nbytes, void** ptr) {
  *ptr = nullptr;
  if (nbytes == 0) return OAR_STATUS_OK;
  cudaError_t err = ensure_device(device);
  if (err == cudaSuccess) err = cudaMallocHost(ptr, nbytes);
  return to_status(err, "cudaMallocHost");
}

OarStatus host_deallocate(int, void* ptr, size_t) {
  return ptr ? to_status(cudaFreeHost(ptr), "cudaFreeHost") : OAR_STATUS_OK;
}

OarStatus copy(int device, OarStream stream, void* dst, const void* src, size_t nbytes,
               cudaMemcpyKind kind, const char* what) {
  if (nbytes == 0) return OAR_STATUS_OK;
  cudaError_t err = ensure_device(device);
  cudaStream_t s = nullptr;
  bool sync = false;
  if (err == cudaSuccess) err = resolve(device, stream, &s, &sync);
  // For pageable host memory cudaMemcpyAsync returns only once the source has been staged
  // (H2D) or the copy is done (D2H), so async copies are safe with any host buffer.
  if (err == cudaSuccess) err = cudaMemcpyAsync(dst, src, nbytes, kind, s);
  if (err == cudaSuccess && sync) err = cudaStreamSynchronize(s);
  return to_status(err, what);
}

OarStatus memcpy_h2d(int device, OarStream stream, void* dst, const void* src, size_t nbytes) {
  return copy(device, stream, dst, src, nbytes, cudaMemcpyHostToDevice, "memcpy_h2d");
}
OarStatus memcpy_d2h(int device, OarStream stream, void* dst, const void* src, size_t nbytes) {
  return copy(device, stream, dst, src, nbytes, cudaMemcpyDeviceToHost, "memcpy_d2h");
}
OarStatus memcpy_d2d(int device, OarStream stream, void* dst, const void* src, size_t nbytes) {
  // cudaMemcpyDefault: with unified addressing this also covers peer copies between devices.
  return copy(device, stream, dst, src, nbytes, cudaMemcpyDefault, "memcpy_d2d");
}

OarStatus create_stream(int device, OarStream* stream) {
  cudaStream_t s = nullptr;
  cudaError_t err = ensure_device(device);
  if (err == cudaSuccess) err = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  *stream = reinterpret_cast<OarStream>(s);
  return to_status(err, "cudaStreamCreate");
}

OarStatus destroy_stream(int device, OarStream stream) {
  cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  cudaStream_t def = nullptr;
  if (!s || (default_stream(device, &def) == cudaSuccess && s == def)) return OAR_STATUS_OK;
  cudaError_t err = ensure_device(device);
  if (err != cudaSuccess) return to_status(err, "cudaSetDevice");
  release_stream_resources(device, s);
  return to_status(cudaStreamDestroy(s), "cudaStreamDestroy");
}

OarStatus synchronize_stream(int device, OarStream stream) {
  cudaStream_t s = nullptr;
  bool sync = false;
  cudaError_t err = ensure_device(device);
  if (err == cudaSuccess) err = resolve(device, stream, &s, &sync);
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  return to_status(err, "cudaStreamSynchronize");
}

OarStatus get_default_stream(int device, OarStream* stream) {
  cudaStream_t s = nullptr;
  const cudaError_t err = default_stream(device, &s);
  *stream = reinterpret_cast<OarStream>(s);
  return to_status(err, "default_stream");
}

OarStatus create_event(int device, OarEvent* event) {
  cudaEvent_t e = nullptr;
  cudaError_t err = ensure_device(device);
  if (err == cudaSuccess) err = cudaEventCreateWithFlags(&e, cudaEventDefault);  // timing on
  *event = reinterpret_cast<OarEvent>(e);
  return to_status(err, "cudaEventCreate");
}

OarStatus destroy_event(int device, OarEvent event) {
  if (!event) return OAR_STATUS_OK;
  cudaError_t err = ensure_device(device);
  if (err == cudaSuccess) err = cudaEventDestroy(reinterpret_cast<cudaEvent_t>(event));
  return to_status(err, "cudaEventDestroy");
}

OarStatus record_event(int device, OarStream stream, OarEvent event) {
  cudaStream_t s = nullptr;
  bool sync = false;
  cudaError_t err = ensure_device(device);
  if (err == cudaSuccess) err = resolve(device, stream, &s, &sync);
  if (err == cudaSuccess) err = cudaEventRecord(reinterpret_cast<cudaEvent_t>(event), s);
  return to_status(err, "cudaEventRecord");
}

OarStatus query_event(int, OarEvent event) {
  const cudaError_t err = cudaEventQuery(reinterpret_cast<cudaEvent_t>(event));
  if (err == cudaErrorNotReady) return OAR_STATUS_NOT_READY;
  return to_status(err, "cudaEventQuery");
}

OarStatus synchronize_event(int, OarEvent event) {
  return to_status(cudaEventSynchronize(reinterpret_cast<cudaEvent_t>(event)),
                   "cudaEventSynchronize");
}

OarStatus stream_wait_event(int device, OarStream stream, OarEvent event) {
  cudaStream_t s = nullptr;
  bool sync = false;
  cudaError_t err = ensure_device(device);
  if (err == cudaSuccess) err = resolve(device, stream, &s, &sync);
  if (err == cudaSuccess) err = cudaStreamWaitEvent(s, reinterpret_cast<cudaEvent_t>(event), 0);
  return to_status(err, "cudaStreamWaitEvent");
}

OarStatus elapsed_time(int, OarEvent start, OarEvent end, float* ms) {
  return to_status(cudaEventElapsedTime(ms, reinterpret_cast<cudaEvent_t>(start),
                                        reinterpret_cast<cudaEvent_t>(end)),
                   "cudaEventElapsedTime");
}

OarStatus synchronize_device(int device) {
  cudaError_t err = ensure_device(device);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  return to_status(err, "cudaDeviceSynchronize");
}

OarStatus memory_info(int device, size_t* free_bytes, size_t* total_bytes) {
  cudaError_t err = ensure_device(device);
  if (err == cudaSuccess) err = cudaMemGetInfo(free_bytes, total_bytes);
  return to_status(err, "cudaMemGetInfo");
}

const char* device_name(int device) {
  DeviceState* s = state(device);
  if (!s) return nullptr;
  load_info(device, s);
  return s->name.c_str();
}

OarStatus device_properties(int device, OarDeviceProperties* out) {
  DeviceState* s = state(device);
  if (!s || !out) return OAR_STATUS_ERROR;
  load_info(device, s);
  *out = {s->name.c_str(), s->total_memory, s->major, s->minor, s->sms};
  return OAR_STATUS_OK;
}

}  // namespace

const OarDeviceInterface* device_interface() {
  static const OarDeviceInterface iface = [] {
    OarDeviceInterface d;
    std::memset(&d, 0, sizeof d);
    d.abi_version = OAR_DEVICE_ABI_VERSION;
    d.struct_size = sizeof(OarDeviceInterface);
    d.device_type = kDeviceType;
    d.device_count = dev_count;
    d.set_device = set_device;
    d.allocate = allocate;
    d.deallocate = deallocate;
    d.host_allocate = host_allocate;
    d.host_deallocate = host_deallocate;
    d.memcpy_h2d = memcpy_h2d;
    d.memcpy_d2h = memcpy_d2h;
    d.memcpy_d2d = memcpy_d2d;
    d.create_stream = create_stream;
    d.destroy_stream = destroy_stream;
    d.synchronize_stream = synchronize_stream;
    d.default_stream = get_default_stream;
    d.create_event = create_event;
    d.destroy_event = destroy_event;
    d.record_event = record_event;
    d.query_event = query_event;
    d.synchronize_event = synchronize_event;
    d.stream_wait_event = stream_wait_event;
    d.elapsed_time = elapsed_time;
    d.synchronize_device = synchronize_device;
    d.memory_info = memory_info;
    d.device_name = device_name;
    d.device_properties = device_properties;
    return d;
  }();
  return &iface;
}

}  // namespace oar_cuda
