// Bindings of oar/distributed for oar.distributed: the TCP store, the process groups and their
// tasks. Collectives release the GIL while they run or wait (other Python threads go on).
#include <nanobind/stl/shared_ptr.h>

#include "bind_common.h"

#ifdef OAR_WITH_GLOO
#include "oar/distributed/process_group_gloo.h"
#include "oar/distributed/tcp_store.h"
#endif

namespace oar::python {

void bind_distributed(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("_dist", "process groups and the rendezvous store (oar/distributed)");
#ifndef OAR_WITH_GLOO
  m.attr("available") = false;
#else
  using namespace oar::distributed;
  using std::chrono::milliseconds;
  m.attr("available") = true;
  auto ms = [](double seconds) { return milliseconds(static_cast<int64_t>(seconds * 1000)); };
  using Release = nb::call_guard<nb::gil_scoped_release>;

  nb::class_<TCPStore>(m, "TCPStore")
      .def("__init__", [ms](TCPStore* s, const std::string& host, int port, bool is_master, double timeout) {
             nb::gil_scoped_release release;  // connecting waits for rank 0
             new (s) TCPStore(host, port, is_master, ms(timeout));
           }, nb::arg("host"), nb::arg("port"), nb::arg("is_master"), nb::arg("timeout") = 900.0)
      .def("set", [](TCPStore& s, const std::string& key, nb::bytes value) {
             std::vector<char> v(value.c_str(), value.c_str() + value.size());
             nb::gil_scoped_release release;
             s.set(key, v);
           }, nb::arg("key"), nb::arg("value"))
      .def("get", [](TCPStore& s, const std::string& key) {
             std::vector<char> v;
             {
               nb::gil_scoped_release release;
               v = s.get(key);
             }
             return nb::bytes(v.data(), v.size());
           }, nb::arg("key"))
      .def("add", &TCPStore::add, nb::arg("key"), nb::arg("value"), Release())
      .def("check", &TCPStore::check, nb::arg("key"), Release())
      .def("wait", [](TCPStore& s, const std::vector<std::string>& keys) { s.wait(keys); }, nb::arg("keys"), Release())
      .def_prop_ro("port", &TCPStore::port);

  nb::class_<Task>(m, "Task")
      .def("wait", &Task::wait, Release())
      .def("is_completed", &Task::is_completed);

  auto op = [](int k) {
    OAR_ENFORCE(k >= 0 && k <= 4, InvalidArgument, "ReduceOp: expected SUM, MAX, MIN, PROD or AVG, got ", k);
    return static_cast<ReduceOp>(k);
  };
  nb::class_<ProcessGroup>(m, "ProcessGroup")
      .def_prop_ro("rank", &ProcessGroup::rank)
      .def_prop_ro("size", &ProcessGroup::size)
      .def_prop_ro("backend", &ProcessGroup::backend)
      .def("all_reduce", [op](ProcessGroup& g, Tensor t, int o, bool sync) { return g.all_reduce(t, op(o), sync); },
           nb::arg("tensor"), nb::arg("op"), nb::arg("sync"), Release())
      .def("broadcast", &ProcessGroup::broadcast, nb::arg("tensor"), nb::arg("src"), nb::arg("sync"), Release())
      .def("reduce", [op](ProcessGroup& g, Tensor t, int dst, int o, bool sync) { return g.reduce(t, dst, op(o), sync); },
           nb::arg("tensor"), nb::arg("dst"), nb::arg("op"), nb::arg("sync"), Release())
      .def("all_gather", &ProcessGroup::all_gather, nb::arg("out"), nb::arg("tensor"), nb::arg("sync"), Release())
      .def("reduce_scatter", [op](ProcessGroup& g, Tensor out, std::vector<Tensor> ins, int o, bool sync) {
             return g.reduce_scatter(out, std::move(ins), op(o), sync);
           }, nb::arg("out"), nb::arg("inputs"), nb::arg("op"), nb::arg("sync"), Release())
      .def("scatter", &ProcessGroup::scatter, nb::arg("out"), nb::arg("inputs"), nb::arg("src"), nb::arg("sync"), Release())
      .def("gather", &ProcessGroup::gather, nb::arg("out"), nb::arg("tensor"), nb::arg("dst"), nb::arg("sync"), Release())
      .def("all_to_all", &ProcessGroup::all_to_all, nb::arg("out"), nb::arg("inputs"), nb::arg("sync"), Release())
      .def("send", &ProcessGroup::send, nb::arg("tensor"), nb::arg("dst"), nb::arg("sync"), Release())
      .def("recv", &ProcessGroup::recv, nb::arg("tensor"), nb::arg("src"), nb::arg("sync"), Release())
      .def("barrier", &ProcessGroup::barrier, nb::arg("sync"), Release());

  nb::class_<ProcessGroupGloo, ProcessGroup>(m, "ProcessGroupGloo")
      .def("__init__", [ms](ProcessGroupGloo* g, TCPStore& store, int rank, int size, const std::string& prefix,
                            const std::string& hostname, double timeout) {
             nb::gil_scoped_release release;  // connecting waits for every rank
             new (g) ProcessGroupGloo(store, rank, size, prefix, hostname, ms(timeout));
           }, nb::arg("store"), nb::arg("rank"), nb::arg("size"), nb::arg("prefix"), nb::arg("hostname"),
           nb::arg("timeout") = 1800.0, nb::keep_alive<1, 2>());
#endif
}

}  // namespace oar::python
