#include "oar/inference/predictor.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>

#include "oar/core/cpu_isa.h"
#include "oar/core/parallel.h"
#include "oar/device/device_registry.h"
#include "oar/inference/thread_tuner.h"
#include "oar/kernels/cpu/frozen_weights.h"
#include "oar/ops/amp.h"
#include "oar/ops/generated/api/elementwise.h"
#include <filesystem>

#include "oar/ir/block.h"
#include "oar/ir/operation.h"
#include "oar/jit/model_file.h"
#include "oar/pass/fusion_passes.h"

namespace oar::inference {

namespace {
// A model directory holds inference.json (Paddle 3's PIR program) or inference.pdmodel.
std::string program_in(const std::string& dir) {
  const std::string json = dir + "/inference.json";
  return std::filesystem::exists(json) ? json : dir + "/inference.pdmodel";
}
}  // namespace

Config::Config(const std::string& model_dir) : Config(program_in(model_dir), model_dir + "/inference.pdiparams") {}

void Config::EnableUseGpu(uint64_t memory_pool_init_size_mb, int device_id) {
  OAR_ENFORCE(device_id >= 0, InvalidArgument, "Config.enable_use_gpu: device_id must be >= 0, got ", device_id);
  pool_mb_ = memory_pool_init_size_mb;
  const int gpus = device::device_count("gpu");
  if (gpus <= device_id) {  // as Paddle's CPU build: say so, and stay on the CPU (use_gpu() is false)
    std::fprintf(stderr, "oar.inference: Config.enable_use_gpu(device_id=%d): %d GPU(s) can be used here; "
                 "the predictor runs on the CPU\n", device_id, gpus);
    return;
  }
  place_ = GPUPlace(device_id);
}

void Config::EnableCustomDevice(const std::string& device_type, int device_id) {
  OAR_ENFORCE(device_id >= 0, InvalidArgument, "Config.enable_custom_device: device_id must be >= 0, got ",
              device_id);
  place_ = CustomPlace(device_type, device_id);
}

std::string Config::custom_device_type() const { return use_custom_device() ? place_.device_type() : ""; }

namespace {

// The place a Config asks for, checked: its device must be loaded (a plug-in loaded after
// enable_custom_device counts).
Place predictor_place(const Config& config) {
  const Place want = config.place();
  if (!want.is_host()) {
    const int n = device::device_count(want.device_type());
    OAR_ENFORCE(n > want.device_id, InvalidArgument, "Predictor: device ", want.str(),
                " is not available (", n, " device(s) of type '", want.device_type(),
                "' are loaded; load its plug-in with OAR_CUSTOM_DEVICE_ROOT or oar.device.load_custom_device)");
  }
  return want;
}

}  // namespace

DType to_dtype(DataType t) {
  switch (t) {
    case DataType::FLOAT32: return DType::Float32;
    case DataType::FLOAT64: return DType::Float64;
    case DataType::INT64: return DType::Int64;
    case DataType::INT32: return DType::Int32;
    case DataType::INT8: return DType::Int8;
    case DataType::UINT8: return DType::UInt8;
    case DataType::BOOL: return DType::Bool;
    case DataType::FLOAT16: return DType::Float16;
    case DataType::BFLOAT16: return DType::BFloat16;
  }
  OAR_THROW(InvalidArgument, "inference: unknown DataType");
}

DataType from_dtype(DType t) {
  for (DataType d : {DataType::FLOAT32, DataType::FLOAT64, DataType::INT64, DataType::INT32, DataType::INT8,
                     DataType::UINT8, DataType::BOOL, DataType::FLOAT16, DataType::BFLOAT16})
    if (to_dtype(d) == t) return d;
  OAR_THROW(Unimplemented, "inference: dtype ", dtype_name(t), " has no inference DataType");
}

// What all predictors made from one Config share: the checked program, its weights and the
// executor (re-entrant).
struct Predictor::Shared {
  std::shared_ptr<ir::Program> program;
  runtime::NamedTensors params;
  std::unique_ptr<runtime::Executor> executor;
  std::vector<std::pair<std::string, const ir::Value*>> outputs;
  std::unordered_map<std::string, ir::TensorType> input_types;
  std::vector<std::string> input_names;
  int threads = 0;
  std::unique_ptr<ThreadCountTuner> tuner;  // the thread count of each run (shared by clones)
  Place place;  // where the program runs and the weights live
  std::optional<amp::State> amp;  // Config::EnableMkldnnBfloat16: the run's auto_cast state
};

Predictor::Predictor(const Config& config) {
  OAR_ENFORCE(!config.prog_file().empty(), InvalidArgument,
              "Predictor: the Config names no model; call SetModel(prog_file, params_file)");
  auto shared = std::make_shared<Shared>();
  shared->place = predictor_place(config);
  jit::Model m = jit::load_model(config.prog_file(), config.params_file());
  shared->program = m.program;
  pass::ParameterStore store(m.params.begin(), m.params.end());
  if (config.ir_optim()) {
    // Fusions, conv + batch_norm folding, constant folding of the (frozen) weights, elementwise
    // chains, dead code: the program and its weights change together. On a device, only the
    // rewrites whose ops every backend runs (the fused ops have host kernels only).
    pass::PassManager pm;
    if (shared->place.is_host()) {
      pass::add_inference_passes(pm, &store);
    } else {
      pass::add_device_inference_passes(pm, &store);
    }
    pm.run(*shared->program);
  }
  // The weights move to the predictor's place once, here, not at every run.
  for (const std::string& name : shared->program->parameter_names())
    shared->params.emplace(name, store.at(name).to(shared->place));
  for (auto& op : shared->program->block().ops())
    if (op->name() == "data") {
      const std::string n = op->attr("name")->as_string("name");
      shared->input_names.push_back(n);
      shared->input_types.emplace(n, op->result(0)->type());
    }
  for (auto& [name, v] : shared->program->outputs()) shared->outputs.emplace_back(name, v);
  OAR_ENFORCE(config.inter_op_num_threads() >= 1, InvalidArgument,
              "Config: inter-op threads must be at least 1, got ", config.inter_op_num_threads());
  shared->executor = std::make_unique<runtime::Executor>(
      shared->program, runtime::ExecutorOptions{config.inter_op_num_threads(), shared->place});
  if (config.mkldnn_bfloat16_enabled()) {
    if (cpu_has_bf16_dot() || !shared->place.is_host()) {
      amp::State st;  // Paddle Inference's bfloat16: the listed ops in bfloat16, the rest float32
      st.level = amp::Level::OD;
      st.dtype = DType::BFloat16;
      st.custom_white.insert(config.bfloat16_ops().begin(), config.bfloat16_ops().end());
      shared->amp = std::move(st);
    } else {
      std::fprintf(stderr, "oar: EnableMkldnnBfloat16: this CPU has no bfloat16 dot-product instructions "
                           "(AVX512_BF16 or AMX); the predictor runs in float32\n");
    }
  }
  shared->threads = config.cpu_math_library_num_threads();
  shared->tuner = std::make_unique<ThreadCountTuner>(shared->threads > 0 ? shared->threads : get_num_threads());
  shared_ = std::move(shared);
  input_names_ = shared_->input_names;
  for (auto& [name, v] : shared_->outputs) output_names_.push_back(name);
}

Predictor::Predictor(std::shared_ptr<const Shared> shared) : shared_(std::move(shared)) {
  input_names_ = shared_->input_names;
  for (auto& [name, v] : shared_->outputs) output_names_.push_back(name);
}

std::unique_ptr<Predictor> Predictor::Clone() const { return std::unique_ptr<Predictor>(new Predictor(shared_)); }

ir::TensorType Predictor::input_type(const std::string& name) const {
  auto it = shared_->input_types.find(name);
  if (it == shared_->input_types.end()) {
    std::string names;
    for (auto& n : input_names_) names += (names.empty() ? "" : ", ") + n;
    OAR_THROW(NotFound, "Predictor: the model has no input '", name, "'; its inputs are [", names, "]");
  }
  return it->second;
}

const Place& Predictor::place() const { return shared_->place; }

std::unique_ptr<Tensor> Predictor::GetInputHandle(const std::string& name) {
  input_type(name);  // checks the name
  return std::unique_ptr<Tensor>(new Tensor(this, name, true));
}

std::unique_ptr<Tensor> Predictor::GetOutputHandle(const std::string& name) {
  bool found = false;
  for (auto& n : output_names_) found = found || n == name;
  if (!found) {
    std::string names;
    for (auto& n : output_names_) names += (names.empty() ? "" : ", ") + n;
    OAR_THROW(NotFound, "Predictor: the model has no output '", name, "'; its outputs are [", names, "]");
  }
  return std::unique_ptr<Tensor>(new Tensor(this, name, false));
}

bool Predictor::Run() {
  for (auto& n : input_names_)
    OAR_ENFORCE(inputs_.count(n), InvalidArgument, "Predictor::Run: input '", n, "' (", input_type(n).str(),
                ") is not set; call GetInputHandle(\"", n, "\")->Reshape(...) and CopyFromCpu(...) first");
  outputs_.clear();  // the last run's outputs are not kept alive through this one
  if (shared_->threads > 0) set_num_threads(shared_->threads);
  kernels::FrozenWeightsScope frozen;  // the model's weights never change: kernels may cache packed forms
  std::optional<amp::AutoCast> bf16;  // Config::EnableMkldnnBfloat16: the run's auto_cast state
  if (shared_->amp) bf16.emplace(*shared_->amp);
  std::vector<const ir::Value*> fetch;
  for (auto& [name, v] : shared_->outputs) fetch.push_back(v);
  std::string signature;
  for (auto& n : input_names_) signature += shape_str(inputs_.at(n).shape());
  const int threads = shared_->tuner->choose(signature);
  ThreadCountScope cores(threads);
  const auto start = std::chrono::steady_clock::now();
  std::vector<oar::Tensor> outs = shared_->executor->run(inputs_, shared_->params, fetch, &stats_);
  shared_->tuner->record(signature, threads,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  for (size_t i = 0; i < outs.size(); ++i) {
    // Outputs keep the program's dtypes (a bfloat16 run computes inside, as Paddle Inference's).
    const DType declared = shared_->outputs[i].second->type().dtype;
    const oar::Tensor& t = outs[i];
    outputs_[shared_->outputs[i].first] = t.dtype() == declared ? t.contiguous() : oar::cast(t, declared);
  }
  return true;
}

std::shared_ptr<Predictor> CreatePredictor(const Config& config) { return std::make_shared<Predictor>(config); }

PredictorPool::PredictorPool(const Config& config, size_t size) {
  OAR_ENFORCE(size >= 1, InvalidArgument, "PredictorPool: size must be at least 1, got ", size);
  preds_.push_back(std::make_unique<Predictor>(config));
  for (size_t i = 1; i < size; ++i) preds_.push_back(preds_[0]->Clone());
}

Predictor* PredictorPool::Retrieve(size_t idx) {
  OAR_ENFORCE(idx < preds_.size(), OutOfRange, "PredictorPool: index ", idx, " is out of range for ", preds_.size(),
              " predictors");
  return preds_[idx].get();
}

// ---- Tensor handles ----

oar::Tensor& Tensor::slot() const {
  auto& table = input_ ? owner_->inputs_ : owner_->outputs_;
  auto it = table.find(name_);
  if (it == table.end()) {
    if (input_) OAR_THROW(PreconditionNotMet, "input '", name_, "': call Reshape(shape) before copying data in");
    OAR_THROW(PreconditionNotMet, "output '", name_, "' has no value yet: call Run() first");
  }
  return it->second;
}

void Tensor::Reshape(const std::vector<int>& shape) {
  OAR_ENFORCE(input_, InvalidArgument, "Reshape: '", name_, "' is an output; outputs take their shape from Run()");
  const ir::TensorType want = owner_->input_type(name_);
  bool ok = shape.size() == want.shape.size();
  for (size_t i = 0; ok && i < shape.size(); ++i) ok = shape[i] >= 0 && (want.shape[i] < 0 || want.shape[i] == shape[i]);
  std::string got;
  for (int d : shape) got += (got.empty() ? "" : ", ") + std::to_string(d);
  OAR_ENFORCE(ok, InvalidArgument, "input '", name_, "': expected shape ", want.str(), ", got [", got, "]");
  owner_->inputs_[name_] = oar::Tensor::make(Shape(shape.begin(), shape.end()), want.dtype);
}

void Tensor::check_dtype(DType want, const char* what) const {
  const DType have = slot().dtype();
  OAR_ENFORCE(have == want, InvalidArgument, (input_ ? "input '" : "output '"), name_, "' is ", dtype_name(have),
              ", but ", what, " was given ", dtype_name(want), " data");
}

template <typename T>
void Tensor::CopyFromCpu(const T* data) {
  OAR_ENFORCE(input_, InvalidArgument, "CopyFromCpu: '", name_, "' is an output");
  OAR_ENFORCE(data != nullptr, InvalidArgument, "CopyFromCpu: input '", name_, "': data is null");
  check_dtype(dtype_of<T>, "CopyFromCpu");
  oar::Tensor& t = slot();
  if (t.numel()) std::memcpy(t.raw_data(), data, static_cast<size_t>(t.numel()) * sizeof(T));
}

template <typename T>
void Tensor::CopyToCpu(T* data) const {
  OAR_ENFORCE(data != nullptr, InvalidArgument, "CopyToCpu: '", name_, "': data is null");
  check_dtype(dtype_of<T>, "CopyToCpu");
  const oar::Tensor& t = slot();
  // An output on a device comes to the host through the one synchronising read (Tensor::cpu).
  const oar::Tensor host = t.place().is_host() ? t : t.cpu();
  if (host.numel()) std::memcpy(data, host.raw_data(), static_cast<size_t>(host.numel()) * sizeof(T));
}

std::vector<int> Tensor::shape() const {
  const oar::Tensor& t = slot();
  return std::vector<int>(t.shape().begin(), t.shape().end());
}

DataType Tensor::type() const {
  if (input_ && !owner_->inputs_.count(name_)) return from_dtype(owner_->input_type(name_).dtype);
  return from_dtype(slot().dtype());
}

#define OAR_INSTANTIATE_COPY(T)                     \
  template void Tensor::CopyFromCpu<T>(const T*); \
  template void Tensor::CopyToCpu<T>(T*) const;
OAR_INSTANTIATE_COPY(float)
OAR_INSTANTIATE_COPY(double)
OAR_INSTANTIATE_COPY(int64_t)
OAR_INSTANTIATE_COPY(int32_t)
OAR_INSTANTIATE_COPY(int8_t)
OAR_INSTANTIATE_COPY(uint8_t)
OAR_INSTANTIATE_COPY(bool)
#undef OAR_INSTANTIATE_COPY

}  // namespace oar::inference
