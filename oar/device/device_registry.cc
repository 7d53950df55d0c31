#include "oar/device/device_registry.h"

#include <dirent.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <mutex>

#include "oar/core/error.h"

namespace oar::device {

namespace {

struct Registry {
  std::recursive_mutex mu;  // held while a plug-in loads (its callbacks re-enter)
  std::vector<std::unique_ptr<Backend>> backends;
  std::vector<std::string> loaded_files;
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: tensors may outlive static teardown
  return *r;
}

Backend* find_locked(const std::string& name) {
  for (auto& b : registry().backends)
    if (b->name == name) return b.get();
  return nullptr;
}

// The interface as this build of oar knows it: the plug-in's own (smaller, from an earlier header
// of the same ABI version) with the members it lacks left null.
constexpr size_t kFirstInterfaceSize = offsetof(OarDeviceInterface, device_properties);

OarStatus register_device_cb(const OarDeviceInterface* api) {
  if (api == nullptr || api->abi_version != OAR_DEVICE_ABI_VERSION ||
      api->struct_size < kFirstInterfaceSize || api->device_type == nullptr ||
      api->device_count == nullptr || api->allocate == nullptr || api->deallocate == nullptr ||
      api->memcpy_h2d == nullptr || api->memcpy_d2h == nullptr || api->memcpy_d2d == nullptr ||
      api->synchronize_device == nullptr)
    return OAR_STATUS_ERROR;
  const std::string name = api->device_type;
  if (name.empty() || name == "cpu" || name == "gpu_pinned" || find_locked(name) != nullptr)
    return OAR_STATUS_ERROR;
  auto b = std::make_unique<Backend>();
  b->name = name;
  std::memcpy(&b->api, api, std::min(api->struct_size, sizeof(OarDeviceInterface)));
  b->count = std::max(0, api->device_count());
  for (int d = 0; d < b->count; ++d) {
    const OarDeviceInterface& a = b->api;
    b->allocators.push_back(std::make_unique<CachingAllocator>(
        name + ":" + std::to_string(d) + " allocator",
        [a, d](size_t n) -> void* {
          void* p = nullptr;
          return a.allocate(d, n, &p) == OAR_STATUS_OK ? p : nullptr;
        },
        [a, d](void* p, size_t n) { a.deallocate(d, p, n); }, nullptr));
    b->current_streams.push_back(nullptr);
  }
  registry().backends.push_back(std::move(b));
  return OAR_STATUS_OK;
}

OarStatus register_kernel_cb(const char* device_type, const char* op, int32_t dtype,
                             OarKernelFn fn) {
  if (device_type == nullptr || op == nullptr || fn == nullptr || dtype < 0 || dtype >= kNumDTypes)
    return OAR_STATUS_ERROR;
  Backend* b = find_locked(device_type);
  if (b == nullptr) return OAR_STATUS_ERROR;  // a plug-in registers its device first
  auto [it, fresh] = b->kernels.try_emplace(op);
  if (fresh) it->second.fill(nullptr);
  it->second[dtype] = fn;
  return OAR_STATUS_OK;
}

const OarRegistrar kRegistrar{OAR_DEVICE_ABI_VERSION, &register_device_cb, &register_kernel_cb};

// The directory liboar.so was loaded from (built-in plug-ins sit beside it).
std::string own_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_directory), &info) == 0 || info.dli_fname == nullptr)
    return ".";
  std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

void load_plugin_locked(const std::string& path, bool quiet_if_unloadable) {
  Registry& r = registry();
  if (std::find(r.loaded_files.begin(), r.loaded_files.end(), path) != r.loaded_files.end()) return;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    if (quiet_if_unloadable) return;  // a built-in backend whose runtime is not installed here
    const char* why = dlerror();
    OAR_THROW(External, "load_custom_device: cannot load the plug-in '", path, "': ",
              why ? why : "unknown error");
  }
  auto init = reinterpret_cast<OarPluginInitFn>(dlsym(handle, OAR_PLUGIN_INIT_SYMBOL));
  OAR_ENFORCE(init != nullptr, External, "load_custom_device: '", path, "' is not an oar device ",
              "plug-in: it exports no ", OAR_PLUGIN_INIT_SYMBOL, " function");
  const size_t before = r.backends.size();
  const OarStatus status = init(&kRegistrar);
  OAR_ENFORCE(status == OAR_STATUS_OK, External, "load_custom_device: the plug-in '", path,
              "' failed to register (status ", static_cast<int>(status), ")");
  for (size_t i = before; i < r.backends.size(); ++i) r.backends[i]->library = path;
  r.loaded_files.push_back(path);  // the handle stays open: kernels live in it
}

std::once_flag g_init_once;

}  // namespace

void initialize() {
  std::call_once(g_init_once, [] {
    Registry& r = registry();
    std::lock_guard<std::recursive_mutex> lock(r.mu);
    const std::string cuda = own_directory() + "/liboar_cuda.so";
    if (FILE* f = std::fopen(cuda.c_str(), "rb")) {
      std::fclose(f);
      load_plugin_locked(cuda, /*quiet_if_unloadable=*/true);
    }
    if (const char* root = std::getenv("OAR_CUSTOM_DEVICE_ROOT"); root && *root) {
      if (DIR* dir = opendir(root)) {
        std::vector<std::string> files;
        while (dirent* e = readdir(dir)) {
          const std::string n = e->d_name;
          if (n.rfind("lib", 0) == 0 && n.size() > 3 && n.substr(n.size() - 3) == ".so")
            files.push_back(std::string(root) + "/" + n);
        }
        closedir(dir);
        std::sort(files.begin(), files.end());
        for (const auto& f : files) load_plugin_locked(f, false);
      }
    }
  });
}

void load_plugin(const std::string& path) {
  initialize();
  std::lock_guard<std::recursive_mutex> lock(registry().mu);
  load_plugin_locked(path, false);
}

Backend* find_backend(const std::string& device_type) {
  initialize();
  return find_locked(device_type);
}

Backend& backend_of(const Place& place, const char* what) {
  // The last answer per thread: every op on a device asks, and backends never go away.
  thread_local DeviceType last_type = DeviceType::CPU;
  thread_local uint16_t last_custom = 0;
  thread_local Backend* last = nullptr;
  if (last != nullptr && place.type == last_type && place.custom_type == last_custom &&
      place.device_id >= 0 && place.device_id < last->count) [[likely]]
    return *last;
  OAR_ENFORCE(!place.is_host(), PreconditionNotMet, what, ": ", place.str(),
              " is host memory, served by the CPU");
  const std::string type = place.device_type();
  Backend* b = find_backend(type);
  if (b == nullptr) {
    if (place.is_gpu())
      OAR_THROW(PreconditionNotMet, what, ": ", place.str(), " is not available: oar was built ",
                "without CUDA or no CUDA runtime was found (oar.device.cuda.device_count() is 0)");
    OAR_THROW(PreconditionNotMet, what, ": ", place.str(), " is not available: no plug-in ",
              "registered the device type '", type, "' (load one with ",
              "oar.device.load_custom_device(path) or OAR_CUSTOM_DEVICE_ROOT)");
  }
  OAR_ENFORCE(place.device_id >= 0 && place.device_id < b->count, OutOfRange, what, ": ",
              place.str(), " does not exist: ", b->count, " ", type, " device(s) present");
  last_type = place.type;
  last_custom = place.custom_type;
  last = b;
  return *b;
}

std::vector<std::string> device_types() {
  initialize();
  std::vector<std::string> out;
  for (auto& b : registry().backends) out.push_back(b->name);
  return out;
}

int device_count(const std::string& device_type) {
  Backend* b = find_backend(device_type);
  return b ? b->count : 0;
}

void check(OarStatus status, const Backend& backend, const char* what) {
  if (status == OAR_STATUS_OK) return;
  if (status == OAR_STATUS_OUT_OF_MEMORY)
    OAR_THROW(ResourceExhausted, what, ": out of memory on the ", backend.name, " device");
  OAR_THROW(External, what, ": the ", backend.name, " device reported an error (status ",
            static_cast<int>(status), ")");
}

namespace {
// Page-locked host memory from the GPU backend when it offers some, plain host memory otherwise.
CachingAllocator& pinned_allocator() {
  static CachingAllocator* a = [] {
    Backend* gpu = find_backend("gpu");
    if (gpu == nullptr || gpu->api.host_allocate == nullptr || gpu->count == 0)
      return &CPUAllocator::instance();
    const OarDeviceInterface api = gpu->api;
    return new CachingAllocator(
        "gpu_pinned allocator",
        [api](size_t n) -> void* {
          void* p = nullptr;
          return api.host_allocate(0, n, &p) == OAR_STATUS_OK ? p : nullptr;
        },
        [api](void* p, size_t n) { api.host_deallocate(0, p, n); }, nullptr);
  }();
  return *a;
}
}  // namespace

CachingAllocator& allocator(const Place& place) {
  if (place.is_cpu()) return CPUAllocator::instance();
  if (place.is_gpu_pinned()) return pinned_allocator();
  Backend& b = backend_of(place, "allocate");
  return *b.allocators[place.device_id];
}

void* allocate(const Place& place, size_t nbytes) { return allocator(place).allocate(nbytes); }

void deallocate(const Place& place, void* ptr, size_t nbytes) {
  allocator(place).deallocate(ptr, nbytes);
}

OarStream current_stream(const Place& place) {
  if (place.is_host()) return nullptr;
  return backend_of(place, "current_stream").current_streams[place.device_id];
}

void set_current_stream(const Place& place, OarStream stream) {
  backend_of(place, "set_stream").current_streams[place.device_id] = stream;
}

void synchronize(const Place& place) {
  if (place.is_host()) return;
  Backend& b = backend_of(place, "synchronize");
  check(b.api.synchronize_device(place.device_id), b, "synchronize");
}

void copy_bytes(const Place& dst_place, void* dst, const Place& src_place, const void* src,
                size_t nbytes) {
  if (nbytes == 0) return;
  if (dst_place.is_host() && src_place.is_host()) {
    std::memcpy(dst, src, nbytes);
    return;
  }
  if (src_place.is_host()) {  // host -> device: queued after earlier work, then waited for
    Backend& b = backend_of(dst_place, "copy to device");
    const int d = dst_place.device_id;
    OarStream s = b.current_streams[d];
    check(b.api.memcpy_h2d(d, s, dst, src, nbytes), b, "copy to device");
    if (s != nullptr && b.api.synchronize_stream) check(b.api.synchronize_stream(d, s), b, "copy to device");
    return;
  }
  if (dst_place.is_host()) {  // device -> host: the one synchronising read path
    Backend& b = backend_of(src_place, "copy to host");
    const int d = src_place.device_id;
    // The source may have been written on any stream (stream_guard): all of them must finish
    // before host code sees the bytes.
    check(b.api.synchronize_device(d), b, "copy to host");
    OarStream s = b.current_streams[d];
    check(b.api.memcpy_d2h(d, s, dst, src, nbytes), b, "copy to host");
    if (s != nullptr && b.api.synchronize_stream) check(b.api.synchronize_stream(d, s), b, "copy to host");
    return;
  }
  if (src_place == dst_place) {  // on one device: stays on its stream
    Backend& b = backend_of(src_place, "copy on device");
    check(b.api.memcpy_d2d(src_place.device_id, b.current_streams[src_place.device_id], dst, src,
                           nbytes),
          b, "copy on device");
    return;
  }
  // Between devices (or backends): through the host.
  std::vector<char> staging(nbytes);
  copy_bytes(CPUPlace(), staging.data(), src_place, src, nbytes);
  copy_bytes(dst_place, dst, CPUPlace(), staging.data(), nbytes);
}

OarKernelFn find_kernel(const Backend& backend, const std::string& op, DType dtype) {
  auto it = backend.kernels.find(op);
  return it == backend.kernels.end() ? nullptr : it->second[static_cast<int>(dtype)];
}

}  // namespace oar::device
