// The custom_cpu device type: the OarDeviceInterface functions and the exported
// oar_plugin_init. Contract: that of oar/device/device_ext.h, with the behaviour of an
// accelerator reached through host threads:
// - device memory comes from DeviceMemory (memory.h); deallocate first waits for the device's
//   streams, as cudaFree does, so no queued kernel can touch a freed block;
// - every stream, the default one included, is a worker thread (stream.h); kernels and copies
//   with a stream enqueue and return, a NULL stream means the default stream and a copy that
//   returns only when done;
// - like CUDA, an "async" copy is truly asynchronous only on the pinned side (host_allocate):
//   from pageable memory the source is staged before returning, to pageable memory the copy
//   completes before returning. OAR_CUSTOM_CPU_STRICT_ASYNC=1 makes both truly asynchronous,
//   to expose code that relies on this leniency;
// - OAR_CUSTOM_CPU_DELAY_US (default 20) is the sleep before each task on a stream;
// - in a process forked after start-up every call fails (the worker threads did not survive
//   the fork), as CUDA refuses to run in a forked child.
#include <pthread.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "oar/device/device_ext.h"
#include "plugins/custom_cpu/memory.h"
#include "plugins/custom_cpu/plugin.h"
#include "plugins/custom_cpu/stream.h"

namespace oar_custom_cpu {
namespace {

std::atomic<bool> g_forked{false};
// set_device only records it: every other call names its device explicitly.
thread_local int t_current_device = 0;

std::chrono::microseconds delay_from_env() {
  constexpr long kDefaultUs = 20;
  const char* text = std::getenv("OAR_CUSTOM_CPU_DELAY_US");
  if (text == nullptr || *text == '\0') return std::chrono::microseconds(kDefaultUs);
  char* end = nullptr;
  const long us = std::strtol(text, &end, 10);
  if (*end != '\0' || us < 0) {
    log_error("OAR_CUSTOM_CPU_DELAY_US=%s is not a count of microseconds; using %ld", text, kDefaultUs);
    return std::chrono::microseconds(kDefaultUs);
  }
  return std::chrono::microseconds(us);
}

bool strict_async_from_env() {
  const char* text = std::getenv("OAR_CUSTOM_CPU_STRICT_ASYNC");
  return text != nullptr && std::strcmp(text, "1") == 0;
}

struct Runtime {
  const std::chrono::microseconds delay = delay_from_env();
  const bool strict_async = strict_async_from_env();
  DeviceMemory memory;
  PinnedMemory pinned;

  std::mutex mu;  // guards what follows
  std::unordered_map<Stream*, std::shared_ptr<Stream>> streams;  // default ones included
  Stream* default_streams[kDeviceCount] = {};
  std::unordered_map<Event*, std::shared_ptr<Event>> events;
};

Runtime& runtime() {
  // Never destroyed: oar may call in from its own static destructors, and a worker may still
  // be parked on its queue at exit.
  static Runtime* rt = [] {
    pthread_atfork(nullptr, nullptr, [] { g_forked.store(true); });
    return new Runtime();
  }();
  return *rt;
}

OarStream handle(Stream* s) { return reinterpret_cast<OarStream>(s); }
OarEvent handle(Event* e) { return reinterpret_cast<OarEvent>(e); }

// The common entry check: a usable process and a device id in range.
bool usable(int device, const char* function) {
  if (g_forked.load()) {
    log_error("%s: custom_cpu cannot be used in a process forked after it started", function);
    return false;
  }
  if (device < 0 || device >= kDeviceCount) {
    log_error("%s: custom_cpu:%d does not exist (device_count is %d)", function, device, kDeviceCount);
    return false;
  }
  return true;
}

std::shared_ptr<Stream> default_stream_of(int device) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  if (rt.default_streams[device] == nullptr) {
    auto s = std::make_shared<Stream>(device, rt.delay);
    rt.default_streams[device] = s.get();
    rt.streams.emplace(s.get(), s);
  }
  return rt.streams.at(rt.default_streams[device]);
}

std::shared_ptr<Event> find_event(OarEvent e) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  auto it = rt.events.find(reinterpret_cast<Event*>(e));
  return it == rt.events.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<Stream>> streams_of(int device) {
  Runtime& rt = runtime();
  std::vector<std::shared_ptr<Stream>> out;
  std::lock_guard<std::mutex> lock(rt.mu);
  for (auto& [_, s] : rt.streams)
    if (s->device() == device) out.push_back(s);
  return out;
}

// ---- the OarDeviceInterface functions ----

int device_count() { return kDeviceCount; }

OarStatus set_device(int device) {
  if (!usable(device, "set_device")) return OAR_STATUS_ERROR;
  t_current_device = device;
  return OAR_STATUS_OK;
}

OarStatus synchronize_device(int device) {
  if (!usable(device, "synchronize_device")) return OAR_STATUS_ERROR;
  for (auto& s : streams_of(device)) s->synchronize();
  return OAR_STATUS_OK;
}

OarStatus allocate(int device, size_t nbytes, void** ptr) {
  if (!usable(device, "allocate") || ptr == nullptr) return OAR_STATUS_ERROR;
  std::string error;
  const OarStatus st = runtime().memory.allocate(device, nbytes, ptr, &error);
  if (st != OAR_STATUS_OK) log_error("allocate: %s", error.c_str());
  return st;
}

OarStatus deallocate(int device, void* ptr, size_t nbytes) {
  if (!usable(device, "deallocate")) return OAR_STATUS_ERROR;
  if (ptr == nullptr) return OAR_STATUS_OK;  // as free(NULL) and cudaFree(NULL)
  synchronize_device(device);  // queued work may still use the block
  std::string error;
  const OarStatus st = runtime().memory.deallocate(device, ptr, nbytes, &error);
  if (st != OAR_STATUS_OK) log_error("%s", error.c_str());
  return st;
}

OarStatus host_allocate(int device, size_t nbytes, void** ptr) {
  if (!usable(device, "host_allocate") || ptr == nullptr) return OAR_STATUS_ERROR;
  std::string error;
  const OarStatus st = runtime().pinned.allocate(nbytes, ptr, &error);
  if (st != OAR_STATUS_OK) log_error("%s", error.c_str());
  return st;
}

OarStatus host_deallocate(int device, void* ptr, size_t nbytes) {
  if (!usable(device, "host_deallocate")) return OAR_STATUS_ERROR;
  if (ptr == nullptr) return OAR_STATUS_OK;
  // An asynchronous copy of any device may still read or write the block.
  for (int d = 0; d < kDeviceCount; ++d) synchronize_device(d);
  std::string error;
  const OarStatus st = runtime().pinned.deallocate(ptr, nbytes, &error);
  if (st != OAR_STATUS_OK) log_error("%s", error.c_str());
  return st;
}

enum class Direction { HostToDevice, DeviceToHost, DeviceToDevice };

bool is_any_device_range(const void* p, size_t n) {
  for (int d = 0; d < kDeviceCount; ++d)
    if (runtime().memory.contains(d, p, n)) return true;
  return false;
}

OarStatus copy(Direction dir, int device, OarStream stream, void* dst, const void* src, size_t n) {
  static const char* const names[] = {"memcpy_h2d", "memcpy_d2h", "memcpy_d2d"};
  const char* name = names[static_cast<int>(dir)];
  if (!usable(device, name)) return OAR_STATUS_ERROR;
  if (n == 0) return OAR_STATUS_OK;
  Runtime& rt = runtime();
  const bool dst_on_device = dir != Direction::DeviceToHost;
  const bool src_on_device = dir != Direction::HostToDevice;
  // The device side must be memory of this device (a peer's, for a d2d source); the host side
  // must not be device memory: on an accelerator the host could not address it.
  const bool dst_ok = dst_on_device ? rt.memory.contains(device, dst, n) : !is_any_device_range(dst, n);
  const bool src_ok = src_on_device ? is_any_device_range(src, n) : !is_any_device_range(src, n);
  if (dst == nullptr || src == nullptr || !dst_ok || !src_ok) {
    log_error("%s on custom_cpu:%d: %zu bytes from %p (%s) to %p (%s): %s", name, device, n, src,
              src_on_device ? "device" : "host", dst, dst_on_device ? "device" : "host",
              !dst_ok ? "the destination is not in the right memory" : "the source is not in the right memory");
    return OAR_STATUS_ERROR;
  }
  std::shared_ptr<Stream> s = resolve_stream(device, stream);
  if (s == nullptr) {
    log_error("%s: %p is not a stream of custom_cpu:%d", name, static_cast<void*>(stream), device);
    return OAR_STATUS_ERROR;
  }
  const bool async = stream != nullptr;
  const bool pageable_src = dir == Direction::HostToDevice && !rt.pinned.contains(src, n);
  const bool pageable_dst = dir == Direction::DeviceToHost && !rt.pinned.contains(dst, n);
  if (async && pageable_src && !rt.strict_async) {
    // Staged now, so the caller may reuse its buffer on return, as with cudaMemcpyAsync.
    auto staged = std::make_shared<std::vector<unsigned char>>(static_cast<const unsigned char*>(src),
                                                               static_cast<const unsigned char*>(src) + n);
    s->enqueue([dst, staged] { std::memcpy(dst, staged->data(), staged->size()); });
  } else {
    s->enqueue([dst, src, n] { std::memcpy(dst, src, n); });
  }
  if (!async || (pageable_dst && !rt.strict_async)) s->synchronize();
  return OAR_STATUS_OK;
}

OarStatus memcpy_h2d(int device, OarStream stream, void* dst, const void* src, size_t n) {
  return copy(Direction::HostToDevice, device, stream, dst, src, n);
}
OarStatus memcpy_d2h(int device, OarStream stream, void* dst, const void* src, size_t n) {
  return copy(Direction::DeviceToHost, device, stream, dst, src, n);
}
OarStatus memcpy_d2d(int device, OarStream stream, void* dst, const void* src, size_t n) {
  return copy(Direction::DeviceToDevice, device, stream, dst, src, n);
}

OarStatus create_stream(int device, OarStream* out) {
  if (!usable(device, "create_stream") || out == nullptr) return OAR_STATUS_ERROR;
  Runtime& rt = runtime();
  auto s = std::make_shared<Stream>(device, rt.delay);
  std::lock_guard<std::mutex> lock(rt.mu);
  rt.streams.emplace(s.get(), s);
  *out = handle(s.get());
  return OAR_STATUS_OK;
}

OarStatus destroy_stream(int device, OarStream stream) {
  if (!usable(device, "destroy_stream")) return OAR_STATUS_ERROR;
  Runtime& rt = runtime();
  std::shared_ptr<Stream> doomed;
  {
    std::lock_guard<std::mutex> lock(rt.mu);
    auto it = rt.streams.find(reinterpret_cast<Stream*>(stream));
    if (it == rt.streams.end() || it->second->device() != device ||
        rt.default_streams[device] == it->first) {
      log_error("destroy_stream: %p is not a stream created on custom_cpu:%d",
                static_cast<void*>(stream), device);
      return OAR_STATUS_ERROR;
    }
    doomed = std::move(it->second);
    rt.streams.erase(it);
  }
  doomed.reset();  // drains and joins, outside the lock (unless another call still holds it)
  return OAR_STATUS_OK;
}

OarStatus synchronize_stream(int device, OarStream stream) {
  if (!usable(device, "synchronize_stream")) return OAR_STATUS_ERROR;
  std::shared_ptr<Stream> s = resolve_stream(device, stream);
  if (s == nullptr) {
    log_error("synchronize_stream: %p is not a stream of custom_cpu:%d", static_cast<void*>(stream), device);
    return OAR_STATUS_ERROR;
  }
  s->synchronize();
  return OAR_STATUS_OK;
}

OarStatus default_stream(int device, OarStream* out) {
  if (!usable(device, "default_stream") || out == nullptr) return OAR_STATUS_ERROR;
  *out = handle(default_stream_of(device).get());
  return OAR_STATUS_OK;
}

OarStatus create_event(int device, OarEvent* out) {
  if (!usable(device, "create_event") || out == nullptr) return OAR_STATUS_ERROR;
  Runtime& rt = runtime();
  auto e = std::make_shared<Event>(device);
  std::lock_guard<std::mutex> lock(rt.mu);
  rt.events.emplace(e.get(), e);
  *out = handle(e.get());
  return OAR_STATUS_OK;
}

OarStatus destroy_event(int device, OarEvent event) {
  if (!usable(device, "destroy_event")) return OAR_STATUS_ERROR;
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  auto it = rt.events.find(reinterpret_cast<Event*>(event));
  if (it == rt.events.end() || it->second->device() != device) {
    log_error("destroy_event: %p is not an event of custom_cpu:%d", static_cast<void*>(event), device);
    return OAR_STATUS_ERROR;
  }
  rt.events.erase(it);  // a pending marker keeps its own reference
  return OAR_STATUS_OK;
}

// The event `event` of `device`, or nullptr (logged) when it is not one.
std::shared_ptr<Event> event_of(int device, OarEvent event, const char* function) {
  std::shared_ptr<Event> e = find_event(event);
  if (e == nullptr || e->device() != device) {
    log_error("%s: %p is not an event of custom_cpu:%d", function, static_cast<void*>(event), device);
    return nullptr;
  }
  return e;
}

OarStatus record_event(int device, OarStream stream, OarEvent event) {
  if (!usable(device, "record_event")) return OAR_STATUS_ERROR;
  std::shared_ptr<Event> e = event_of(device, event, "record_event");
  std::shared_ptr<Stream> s = resolve_stream(device, stream);
  if (e == nullptr) return OAR_STATUS_ERROR;
  if (s == nullptr) {
    log_error("record_event: %p is not a stream of custom_cpu:%d", static_cast<void*>(stream), device);
    return OAR_STATUS_ERROR;
  }
  const uint64_t generation = e->record_marker();
  s->enqueue([e, generation] { e->complete(generation); });
  return OAR_STATUS_OK;
}

OarStatus query_event(int device, OarEvent event) {
  if (!usable(device, "query_event")) return OAR_STATUS_ERROR;
  std::shared_ptr<Event> e = event_of(device, event, "query_event");
  if (e == nullptr) return OAR_STATUS_ERROR;
  return e->is_done() ? OAR_STATUS_OK : OAR_STATUS_NOT_READY;
}

OarStatus synchronize_event(int device, OarEvent event) {
  if (!usable(device, "synchronize_event")) return OAR_STATUS_ERROR;
  std::shared_ptr<Event> e = event_of(device, event, "synchronize_event");
  if (e == nullptr) return OAR_STATUS_ERROR;
  e->wait_for(e->latest());
  return OAR_STATUS_OK;
}

OarStatus stream_wait_event(int device, OarStream stream, OarEvent event) {
  if (!usable(device, "stream_wait_event")) return OAR_STATUS_ERROR;
  std::shared_ptr<Stream> s = resolve_stream(device, stream);
  std::shared_ptr<Event> e = find_event(event);  // an event of any device, as in CUDA
  if (s == nullptr || e == nullptr) {
    log_error("stream_wait_event: stream %p or event %p unknown on custom_cpu:%d",
              static_cast<void*>(stream), static_cast<void*>(event), device);
    return OAR_STATUS_ERROR;
  }
  // Waits for the recording made before this call, not for later ones.
  const uint64_t generation = e->latest();
  if (generation != 0) s->enqueue([e, generation] { e->wait_for(generation); });
  return OAR_STATUS_OK;
}

OarStatus elapsed_time(int device, OarEvent start, OarEvent end, float* ms) {
  if (!usable(device, "elapsed_time") || ms == nullptr) return OAR_STATUS_ERROR;
  std::shared_ptr<Event> a = event_of(device, start, "elapsed_time");
  std::shared_ptr<Event> b = event_of(device, end, "elapsed_time");
  if (a == nullptr || b == nullptr) return OAR_STATUS_ERROR;
  if (a->latest() == 0 || b->latest() == 0) {
    log_error("elapsed_time: both events must have been recorded");
    return OAR_STATUS_ERROR;
  }
  Event::Clock::time_point ta, tb;
  if (!a->is_done() || !b->is_done() || !a->completion_time(&ta) || !b->completion_time(&tb))
    return OAR_STATUS_NOT_READY;
  *ms = std::chrono::duration<float, std::milli>(tb - ta).count();
  return OAR_STATUS_OK;
}

OarStatus memory_info(int device, size_t* free_bytes, size_t* total_bytes) {
  if (!usable(device, "memory_info") || free_bytes == nullptr || total_bytes == nullptr)
    return OAR_STATUS_ERROR;
  *total_bytes = DeviceMemory::kTotalBytes;
  *free_bytes = DeviceMemory::kTotalBytes - runtime().memory.used_bytes(device);
  return OAR_STATUS_OK;
}

const char* device_name(int) { return "custom_cpu (oar test device: host threads and memory)"; }

OarStatus device_properties(int device, OarDeviceProperties* out) {
  if (!usable(device, "device_properties") || out == nullptr) return OAR_STATUS_ERROR;
  // A host device: no compute capability; its "multiprocessors" are its worker threads (one).
  *out = {device_name(device), static_cast<size_t>(DeviceMemory::kTotalBytes), 0, 0, 1};
  return OAR_STATUS_OK;
}

OarDeviceInterface make_interface() {
  OarDeviceInterface d{};
  d.abi_version = OAR_DEVICE_ABI_VERSION;
  d.struct_size = sizeof(OarDeviceInterface);
  d.device_type = kDeviceType;
  d.device_count = device_count;
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
  d.default_stream = default_stream;
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
}

}  // namespace

std::shared_ptr<Stream> resolve_stream(int device, OarStream stream) {
  if (g_forked.load() || device < 0 || device >= kDeviceCount) return nullptr;
  if (stream == nullptr) return default_stream_of(device);
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mu);
  auto it = rt.streams.find(reinterpret_cast<Stream*>(stream));
  if (it == rt.streams.end() || it->second->device() != device) return nullptr;
  return it->second;
}

bool is_device_range(int device, const void* ptr, size_t nbytes) {
  return device >= 0 && device < kDeviceCount && runtime().memory.contains(device, ptr, nbytes);
}

void log_error(const char* format, ...) {
  char message[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  std::fprintf(stderr, "oar_custom_cpu: %s\n", message);
}

}  // namespace oar_custom_cpu

extern "C" __attribute__((visibility("default"))) OarStatus oar_plugin_init(const OarRegistrar* registrar) {
  using namespace oar_custom_cpu;
  if (registrar == nullptr || registrar->abi_version != OAR_DEVICE_ABI_VERSION ||
      registrar->register_device == nullptr || registrar->register_kernel == nullptr) {
    log_error("oar_plugin_init: this plug-in speaks device ABI version %d; the registrar does not",
              OAR_DEVICE_ABI_VERSION);
    return OAR_STATUS_ERROR;
  }
  static const OarDeviceInterface device = make_interface();  // must outlive the process's use
  const OarStatus st = registrar->register_device(&device);
  if (st != OAR_STATUS_OK) return st;
  return register_kernels(registrar);
}
