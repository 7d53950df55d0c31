// Bindings of the inference API (oar/inference/predictor.h) for oar.inference: the same Config,
// Predictor, handles and PredictorPool as in C++, with NumPy arrays in and out.
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/shared_ptr.h>

#include "bind_common.h"
#include "oar/inference/predictor.h"

namespace oar::python {

namespace {

using inference::Config;
using inference::DataType;
using inference::Predictor;
using Handle = inference::Tensor;

template <typename T>
nb::ndarray<nb::numpy> to_numpy_copy(const Handle& h) {
  std::vector<int> shape = h.shape();
  std::vector<size_t> dims(shape.begin(), shape.end());
  size_t n = 1;
  for (size_t d : dims) n *= d;
  T* data = new T[n ? n : 1];
  h.CopyToCpu(data);
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<T*>(p); });
  return nb::ndarray<nb::numpy>(data, dims.size(), dims.data(), owner, nullptr, nb::dtype<T>());
}

template <typename T>
bool copy_in(Handle& h, nb::ndarray<> a) {
  if (a.dtype() != nb::dtype<T>()) return false;
  std::vector<int> shape;
  for (size_t i = 0; i < a.ndim(); ++i) shape.push_back(static_cast<int>(a.shape(i)));
  h.Reshape(shape);
  h.CopyFromCpu(static_cast<const T*>(a.data()));
  return true;
}

}  // namespace

void bind_inference(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("_inference", "the inference predictor");

  nb::enum_<DataType>(m, "DataType")
      .value("FLOAT32", DataType::FLOAT32)
      .value("FLOAT64", DataType::FLOAT64)
      .value("INT64", DataType::INT64)
      .value("INT32", DataType::INT32)
      .value("INT8", DataType::INT8)
      .value("UINT8", DataType::UINT8)
      .value("BOOL", DataType::BOOL)
      .value("FLOAT16", DataType::FLOAT16)
      .value("BFLOAT16", DataType::BFLOAT16);

  nb::class_<Config>(m, "Config")
      .def(nb::init<>())
      .def(nb::init<const std::string&>(), nb::arg("model_dir"))
      .def(nb::init<const std::string&, const std::string&>(), nb::arg("prog_file"), nb::arg("params_file"))
      .def("set_model", &Config::SetModel, nb::arg("prog_file"), nb::arg("params_file"))
      .def("prog_file", &Config::prog_file)
      .def("params_file", &Config::params_file)
      .def("set_cpu_math_library_num_threads", &Config::SetCpuMathLibraryNumThreads, nb::arg("num_threads"))
      .def("cpu_math_library_num_threads", &Config::cpu_math_library_num_threads)
      .def("set_inter_op_num_threads", &Config::SetInterOpNumThreads, nb::arg("num_threads"))
      .def("inter_op_num_threads", &Config::inter_op_num_threads)
      .def("switch_ir_optim", &Config::SwitchIrOptim, nb::arg("x") = true)
      .def("ir_optim", &Config::ir_optim)
      .def("enable_memory_optim", &Config::EnableMemoryOptim, nb::arg("x") = true)
      .def("memory_optim_enabled", &Config::enable_memory_optim)
      .def("disable_glog_info", &Config::DisableGlogInfo)
      .def("enable_use_gpu", &Config::EnableUseGpu, nb::arg("memory_pool_init_size_mb"), nb::arg("device_id") = 0)
      .def("disable_gpu", &Config::DisableGpu)
      .def("use_gpu", &Config::use_gpu)
      .def("gpu_device_id", &Config::gpu_device_id)
      .def("memory_pool_init_size_mb", &Config::memory_pool_init_size_mb)
      .def("enable_custom_device", &Config::EnableCustomDevice, nb::arg("device_type"), nb::arg("device_id") = 0)
      .def("use_custom_device", &Config::use_custom_device)
      .def("custom_device_type", &Config::custom_device_type)
      .def("custom_device_id", &Config::custom_device_id)
      .def("enable_mkldnn", &Config::EnableMKLDNN)
      .def("disable_mkldnn", &Config::DisableMKLDNN)
      .def("mkldnn_enabled", &Config::mkldnn_enabled)
      .def("enable_mkldnn_bfloat16", &Config::EnableMkldnnBfloat16)
      .def("mkldnn_bfloat16_enabled", &Config::mkldnn_bfloat16_enabled)
      .def("set_bfloat16_op", [](Config& c, const std::vector<std::string>& ops) { c.SetBfloat16Op(ops); },
           nb::arg("op_list"));

  nb::class_<Handle>(m, "Tensor")
      .def("reshape", &Handle::Reshape, nb::arg("shape"))
      .def("shape", &Handle::shape)
      .def("type", &Handle::type)
      .def("name", &Handle::name)
      .def("copy_from_cpu", [](Handle& h, nb::ndarray<nb::c_contig> a) {
        nb::ndarray<> any(a);
        if (copy_in<float>(h, any) || copy_in<double>(h, any) || copy_in<int64_t>(h, any) ||
            copy_in<int32_t>(h, any) || copy_in<int8_t>(h, any) || copy_in<uint8_t>(h, any) ||
            copy_in<bool>(h, any))
          return;
        OAR_THROW(InvalidArgument, "copy_from_cpu: input '", h.name(), "': unsupported NumPy dtype");
      }, nb::arg("data"))
      .def("copy_to_cpu", [](const Handle& h) -> nb::object {
        switch (h.type()) {
          case DataType::FLOAT32: return nb::cast(to_numpy_copy<float>(h));
          case DataType::FLOAT64: return nb::cast(to_numpy_copy<double>(h));
          case DataType::INT64: return nb::cast(to_numpy_copy<int64_t>(h));
          case DataType::INT32: return nb::cast(to_numpy_copy<int32_t>(h));
          case DataType::INT8: return nb::cast(to_numpy_copy<int8_t>(h));
          case DataType::UINT8: return nb::cast(to_numpy_copy<uint8_t>(h));
          case DataType::BOOL: return nb::cast(to_numpy_copy<bool>(h));
          default: OAR_THROW(Unimplemented, "copy_to_cpu: output '", h.name(), "' has a dtype NumPy cannot hold");
        }
      });

  nb::class_<Predictor>(m, "Predictor")
      .def("get_input_names", &Predictor::GetInputNames)
      .def("get_output_names", &Predictor::GetOutputNames)
      .def("get_input_handle", &Predictor::GetInputHandle, nb::arg("name"), nb::keep_alive<0, 1>())
      .def("get_output_handle", &Predictor::GetOutputHandle, nb::arg("name"), nb::keep_alive<0, 1>())
      .def("run", [](Predictor& p) {
        nb::gil_scoped_release release;  // other Python threads (a pool's requests) go on meanwhile
        return p.Run();
      })
      .def("clone", [](const Predictor& p) { return std::shared_ptr<Predictor>(p.Clone()); })
      .def("last_run_stats", [](const Predictor& p) {
        nb::dict d;
        d["peak_bytes"] = p.last_run_stats().peak_bytes;
        d["ops_run"] = p.last_run_stats().ops_run;
        d["ops_in_place"] = p.last_run_stats().ops_in_place;
        return d;
      });

  nb::class_<inference::PredictorPool>(m, "PredictorPool")
      .def(nb::init<const Config&, size_t>(), nb::arg("config"), nb::arg("size") = 1)
      .def("size", &inference::PredictorPool::size)
      .def("retrieve", &inference::PredictorPool::Retrieve, nb::arg("idx"), nb::rv_policy::reference_internal);

  m.def("create_predictor", [](const Config& c) { return inference::CreatePredictor(c); }, nb::arg("config"));
}

}  // namespace oar::python
