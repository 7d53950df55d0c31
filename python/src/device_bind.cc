// Devices for Python: places as strings ("cpu", "gpu:0", "custom_cpu:1", "gpu_pinned"), moving
// tensors, the expected place, plug-in loading, allocator statistics, streams and events.
// oar/device/__init__.py builds Paddle's API (set_device, Stream, Event, cuda.*) over these.
#include "bind_common.h"
#include "oar/device/device_registry.h"
#include "oar/ir/operation.h"
#include "oar/ops/device_dispatch.h"
#include "oar/ops/device_ops.h"

namespace oar::python {

namespace {

std::string place_key(const Place& p) {
  if (p.is_cpu() || p.is_gpu_pinned()) return p.device_type();
  return p.device_type() + ":" + std::to_string(p.device_id);
}

nb::dict stats_dict(const MemoryStats& s) {
  nb::dict d;
  d["allocated"] = s.allocated;
  d["reserved"] = s.reserved;
  d["peak_allocated"] = s.peak_allocated;
  d["peak_reserved"] = s.peak_reserved;
  d["num_allocs"] = s.num_allocs;
  d["num_cache_hits"] = s.num_cache_hits;
  return d;
}

// The device's api and id for a place string; throws for host places.
std::pair<device::Backend*, int> device_of(const std::string& text, const char* what) {
  const Place p = parse_place(text, what);
  return {&device::backend_of(p, what), p.device_id};
}

uintptr_t handle(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// A Python attribute value for a backend kernel: bool, int, float, str or None.
ir::Attribute attribute_of(const std::string& name, nb::handle v) {
  if (v.is_none()) return ir::Attribute::none();
  if (PyBool_Check(v.ptr())) return ir::Attribute::boolean(v.ptr() == Py_True);
  if (PyLong_Check(v.ptr())) return ir::Attribute::integer(nb::cast<int64_t>(v));
  if (PyFloat_Check(v.ptr())) return ir::Attribute::floating(PyFloat_AsDouble(v.ptr()));
  if (PyUnicode_Check(v.ptr())) return ir::Attribute::string(nb::cast<std::string>(v));
  OAR_THROW(InvalidArgument, "_launch_kernel: attribute '", name, "' must be a bool, int, float, str "
            "or None, got ", nb::cast<std::string>(nb::str(v.type())));
}

// Runs a backend kernel directly (oar::ops::launch): inputs in the kernel's order (None: an
// absent optional), outputs the tensors it writes, already allocated on the device. For in-place
// kernels such as optimizer_* the outputs are inputs themselves; their versions are bumped.
void launch_kernel(const std::string& op, const std::vector<std::optional<Tensor>>& inputs,
                   const nb::dict& attrs, const std::vector<std::optional<Tensor>>& outputs) {
  std::vector<Tensor> ins, outs;
  ins.reserve(inputs.size());
  for (const auto& t : inputs) ins.push_back(t ? *t : Tensor());
  outs.reserve(outputs.size());
  for (const auto& t : outputs) outs.push_back(t ? *t : Tensor());
  ir::AttributeMap amap;
  for (auto [k, v] : attrs) {
    const std::string name = nb::cast<std::string>(k);
    amap.emplace(name, attribute_of(name, v));
  }
  std::vector<Tensor> all(ins);
  all.insert(all.end(), outs.begin(), outs.end());
  const Place place = ops::device_place_of(op.c_str(), {}, {&all});
  OAR_ENFORCE_ARG(!place.is_host(), "_launch_kernel(", op, "): no tensor is on a device; backend "
                  "kernels run on devices only");
  bool only_empty = true;  // launch() reads numel() of outputs up to the first non-empty one
  for (size_t i = 0; i < outs.size(); ++i) {
    const Tensor& t = outs[i];
    if (!t.defined()) {
      OAR_ENFORCE_ARG(!only_empty, "_launch_kernel(", op, "): output ", i,
                      " is None after only empty outputs");
      continue;
    }
    OAR_ENFORCE_ARG(t.place() == place, "_launch_kernel(", op, "): output ", i, " is on ",
                    t.place().str(), ", not ", place.str());
    OAR_ENFORCE_ARG(t.is_contiguous(), "_launch_kernel(", op, "): output ", i, " is not contiguous");
    only_empty = only_empty && t.numel() == 0;
  }
  {
    nb::gil_scoped_release release;
    ops::launch(op.c_str(), place, ins, amap, outs);
  }
  for (const Tensor& t : outs)
    if (t.defined()) t.bump_version();
}

}  // namespace

void bind_device(nb::module_& m) {
  m.def("_place_of", [](const Tensor& t) { return place_key(t.place()); });
  m.def("_launch_kernel", &launch_kernel, nb::arg("op"), nb::arg("inputs"), nb::arg("attrs"),
        nb::arg("outputs"));
  // Whether the backend of a device place registered a kernel for (op, dtype); false on the host.
  m.def("_has_kernel", [](const std::string& op, const std::string& place, DType dtype) {
    const Place p = parse_place(place, "_has_kernel");
    if (p.is_host()) return false;
    const device::Backend* b = device::find_backend(p.device_type());
    return b != nullptr && device::find_kernel(*b, op, dtype) != nullptr;
  }, nb::arg("op"), nb::arg("place"), nb::arg("dtype"));
  m.def("_to_place", [](const Tensor& t, const std::string& place) {
    return to_place(t, parse_place(place, "Tensor.to"));
  });
  m.def("_check_place", [](const std::string& place) { return place_key(parse_place(place)); });
  m.def("_get_device", [] { return place_key(expected_place()); });
  m.def("_set_device", [](const std::string& text) {
    const Place p = parse_place(text, "set_device");
    OAR_ENFORCE_ARG(!p.is_gpu_pinned(), "set_device: 'gpu_pinned' is host memory, not a device");
    if (!p.is_host()) device::backend_of(p, "set_device");  // exists and has that device id
    set_default_place(p);
    return place_key(p);
  });
  m.def("_device_types", [] { return device::device_types(); });
  m.def("_device_count", [](const std::string& type) { return device::device_count(type); });
  m.def("_device_name", [](const std::string& place) -> std::string {
    auto [b, id] = device_of(place, "get_device_name");
    return b->api.device_name ? b->api.device_name(id) : b->name;
  });
  m.def("_device_properties", [](const std::string& place) {
    auto [b, id] = device_of(place, "get_device_properties");
    OarDeviceProperties p{};
    if (b->api.device_properties == nullptr || b->api.device_properties(id, &p) != OAR_STATUS_OK)
      OAR_THROW(Unimplemented, "get_device_properties: the ", b->name, " backend does not report properties");
    return nb::make_tuple(p.name ? std::string(p.name) : b->name, p.major, p.minor,
                          static_cast<uint64_t>(p.total_memory), p.multi_processor_count);
  });
  m.def("_load_custom_device", [](const std::string& path) { device::load_plugin(path); });
  m.def("_synchronize", [](const std::string& place) {
    device::synchronize(parse_place(place, "synchronize"));
  });
  m.def("_memory_stats", [](const std::string& place) {
    return stats_dict(device::allocator(parse_place(place, "memory_stats")).stats());
  }, nb::arg("place") = "cpu");
  m.def("_reset_peak_memory", [](const std::string& place) {
    device::allocator(parse_place(place, "reset_max_memory_allocated")).reset_peak();
  }, nb::arg("place") = "cpu");
  m.def("_empty_cache", [](const std::string& place) {
    device::allocator(parse_place(place, "empty_cache")).empty_cache();
  }, nb::arg("place") = "cpu");
  m.def("_memory_info", [](const std::string& place) {
    auto [b, id] = device_of(place, "mem_get_info");
    size_t free_b = 0, total = 0;
    if (b->api.memory_info) device::check(b->api.memory_info(id, &free_b, &total), *b, "mem_get_info");
    return nb::make_tuple(free_b, total);
  });

  // Streams and events as opaque handles (0: the device's default stream).
  m.def("_stream_create", [](const std::string& place) {
    auto [b, id] = device_of(place, "Stream");
    OAR_ENFORCE(b->api.create_stream != nullptr, Unimplemented, "Stream: the ", b->name,
                " device has no streams");
    OarStream s = nullptr;
    device::check(b->api.create_stream(id, &s), *b, "Stream");
    return handle(s);
  });
  m.def("_stream_destroy", [](const std::string& place, uintptr_t s) {
    auto [b, id] = device_of(place, "Stream");
    if (s != 0 && b->api.destroy_stream)
      device::check(b->api.destroy_stream(id, reinterpret_cast<OarStream>(s)), *b, "Stream");
  });
  m.def("_stream_synchronize", [](const std::string& place, uintptr_t s) {
    auto [b, id] = device_of(place, "Stream.synchronize");
    if (s == 0 || !b->api.synchronize_stream) {
      device::check(b->api.synchronize_device(id), *b, "Stream.synchronize");
      return;
    }
    device::check(b->api.synchronize_stream(id, reinterpret_cast<OarStream>(s)), *b, "Stream.synchronize");
  });
  m.def("_current_stream", [](const std::string& place) {
    return handle(device::current_stream(parse_place(place, "current_stream")));
  });
  m.def("_set_stream", [](const std::string& place, uintptr_t s) {
    const Place p = parse_place(place, "set_stream");
    const uintptr_t previous = handle(device::current_stream(p));
    device::set_current_stream(p, reinterpret_cast<OarStream>(s));
    return previous;
  });
  m.def("_event_create", [](const std::string& place) {
    auto [b, id] = device_of(place, "Event");
    OAR_ENFORCE(b->api.create_event != nullptr, Unimplemented, "Event: the ", b->name,
                " device has no events");
    OarEvent e = nullptr;
    device::check(b->api.create_event(id, &e), *b, "Event");
    return handle(e);
  });
  m.def("_event_destroy", [](const std::string& place, uintptr_t e) {
    auto [b, id] = device_of(place, "Event");
    if (b->api.destroy_event) device::check(b->api.destroy_event(id, reinterpret_cast<OarEvent>(e)), *b, "Event");
  });
  m.def("_event_record", [](const std::string& place, uintptr_t e, uintptr_t s) {
    auto [b, id] = device_of(place, "Event.record");
    device::check(b->api.record_event(id, reinterpret_cast<OarStream>(s), reinterpret_cast<OarEvent>(e)),
                  *b, "Event.record");
  });
  m.def("_event_query", [](const std::string& place, uintptr_t e) {
    auto [b, id] = device_of(place, "Event.query");
    const OarStatus st = b->api.query_event(id, reinterpret_cast<OarEvent>(e));
    if (st == OAR_STATUS_NOT_READY) return false;
    device::check(st, *b, "Event.query");
    return true;
  });
  m.def("_event_synchronize", [](const std::string& place, uintptr_t e) {
    auto [b, id] = device_of(place, "Event.synchronize");
    device::check(b->api.synchronize_event(id, reinterpret_cast<OarEvent>(e)), *b, "Event.synchronize");
  });
  m.def("_stream_wait_event", [](const std::string& place, uintptr_t s, uintptr_t e) {
    auto [b, id] = device_of(place, "Stream.wait_event");
    device::check(b->api.stream_wait_event(id, reinterpret_cast<OarStream>(s), reinterpret_cast<OarEvent>(e)),
                  *b, "Stream.wait_event");
  });
  m.def("_event_elapsed", [](const std::string& place, uintptr_t a, uintptr_t z) {
    auto [b, id] = device_of(place, "Event.elapsed_time");
    OAR_ENFORCE(b->api.elapsed_time != nullptr, Unimplemented, "Event.elapsed_time: the ", b->name,
                " device does not time events");
    float ms = 0;
    device::check(b->api.elapsed_time(id, reinterpret_cast<OarEvent>(a), reinterpret_cast<OarEvent>(z), &ms),
                  *b, "Event.elapsed_time");
    return ms;
  });
}

}  // namespace oar::python
