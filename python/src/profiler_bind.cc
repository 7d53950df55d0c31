// oar._C._profiler_*: the profiler's recorder (oar/ops/op_profiler.h), for python/oar/profiler.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bind_common.h"
#include "oar/ops/op_profiler.h"

namespace oar::python {

void bind_profiler(nb::module_& m) {
  m.def("_profiler_start", &profiler::start, nb::arg("record_shapes"));
  m.def("_profiler_running", &profiler::running);
  m.def("_profiler_now_ns", &profiler::now_ns);
  m.def("_profiler_record_range", &profiler::record_range, nb::arg("name"), nb::arg("type"), nb::arg("start_ns"),
        nb::arg("end_ns"));
  // The events as tuples (name, type, start_ns, end_ns, thread_id, input_shapes, input_dtypes).
  m.def("_profiler_stop", [] {
    nb::list out;
    for (const profiler::Event& e : profiler::stop())
      out.append(nb::make_tuple(e.name, e.type, e.start_ns, e.end_ns, e.thread_id, e.input_shapes, e.input_dtypes));
    return out;
  });
}

}  // namespace oar::python
