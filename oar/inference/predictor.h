// The inference API (as Paddle Inference's paddle_infer): a Config names the saved model and
// how to run it, CreatePredictor loads and checks it, and the predictor's input/output handles
// move data in and out. A PredictorPool serves concurrent requests: its predictors share the
// loaded program and weights (the executor is re-entrant), each owns its input/output tensors.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "oar/core/tensor.h"
#include "oar/runtime/executor.h"

namespace oar::inference {

class Config {
 public:
  Config() = default;
  // A directory holding inference.pdmodel and inference.pdiparams.
  explicit Config(const std::string& model_dir);
  Config(const std::string& prog_file, const std::string& params_file) { SetModel(prog_file, params_file); }

  void SetModel(const std::string& prog_file, const std::string& params_file) {
    prog_file_ = prog_file;
    params_file_ = params_file;
  }
  const std::string& prog_file() const { return prog_file_; }
  const std::string& params_file() const { return params_file_; }

  // Threads for the math kernels of each Run (0: oar's default).
  void SetCpuMathLibraryNumThreads(int n) { threads_ = n; }
  int cpu_math_library_num_threads() const { return threads_; }
  // Independent ops run on this many threads at once (an oar extension; 1: one after another).
  void SetInterOpNumThreads(int n) { inter_op_threads_ = n; }
  int inter_op_num_threads() const { return inter_op_threads_; }
  // Run the inference passes (fusions, folding) on the program when it is loaded.
  void SwitchIrOptim(bool on = true) { ir_optim_ = on; }
  bool ir_optim() const { return ir_optim_; }
  // Free each intermediate after its last reader (always on in oar's executor; kept for Paddle's API).
  void EnableMemoryOptim(bool on = true) { memory_optim_ = on; }
  bool enable_memory_optim() const { return memory_optim_; }
  void DisableGlogInfo() {}

  // Where the predictor runs (Paddle's device switches). EnableUseGpu's pool size is accepted
  // for Paddle's API (oar's caching allocator grows on demand); without a usable GPU it warns
  // and leaves the Config on the CPU, as Paddle's CPU build does. A custom device that is not
  // loaded is an error when the predictor is made.
  void EnableUseGpu(uint64_t memory_pool_init_size_mb = 100, int device_id = 0);
  void DisableGpu() { place_ = CPUPlace(); }
  bool use_gpu() const { return place_.type == DeviceType::GPU; }
  int gpu_device_id() const { return use_gpu() ? place_.device_id : 0; }
  uint64_t memory_pool_init_size_mb() const { return pool_mb_; }
  void EnableCustomDevice(const std::string& device_type, int device_id = 0);
  bool use_custom_device() const { return place_.type == DeviceType::Custom; }
  std::string custom_device_type() const;
  int custom_device_id() const { return use_custom_device() ? place_.device_id : 0; }
  const Place& place() const { return place_; }

  // oneDNN is always on in oar (Paddle's switch is kept for its API).
  void EnableMKLDNN() {}
  void DisableMKLDNN() {}
  bool mkldnn_enabled() const { return true; }
  // bfloat16 inference: matmul, linear and convolution (the white list of auto_cast's OD level,
  // plus SetBfloat16Op's ops) run in bfloat16 on CPUs with bfloat16 dot products
  // (cpu_has_bf16_dot()); elsewhere it warns once and runs in float32, as Paddle does.
  void EnableMkldnnBfloat16() { bf16_ = true; }
  bool mkldnn_bfloat16_enabled() const { return bf16_; }
  void SetBfloat16Op(std::vector<std::string> ops) { bf16_ops_ = std::move(ops); }
  const std::vector<std::string>& bfloat16_ops() const { return bf16_ops_; }

 private:
  std::string prog_file_, params_file_;
  Place place_ = CPUPlace();
  uint64_t pool_mb_ = 0;
  int threads_ = 0;
  int inter_op_threads_ = 1;
  bool ir_optim_ = true;
  bool memory_optim_ = true;
  bool bf16_ = false;
  std::vector<std::string> bf16_ops_;
};

enum class DataType { FLOAT32, FLOAT64, INT64, INT32, INT8, UINT8, BOOL, FLOAT16, BFLOAT16 };

class Predictor;

// A handle onto one input or output of a predictor (paddle_infer::Tensor).
class Tensor {
 public:
  // Sets an input's shape (allocates it); checked against the shape the model was saved with.
  void Reshape(const std::vector<int>& shape);
  template <typename T> void CopyFromCpu(const T* data);
  template <typename T> void CopyToCpu(T* data) const;
  std::vector<int> shape() const;
  DataType type() const;
  const std::string& name() const { return name_; }

 private:
  friend class Predictor;
  Tensor(Predictor* owner, std::string name, bool input) : owner_(owner), name_(std::move(name)), input_(input) {}
  oar::Tensor& slot() const;
  void check_dtype(DType want, const char* what) const;
  Predictor* owner_;
  std::string name_;
  bool input_;
};

class Predictor {
 public:
  explicit Predictor(const Config& config);

  std::vector<std::string> GetInputNames() const { return input_names_; }
  std::vector<std::string> GetOutputNames() const { return output_names_; }
  std::unique_ptr<Tensor> GetInputHandle(const std::string& name);
  std::unique_ptr<Tensor> GetOutputHandle(const std::string& name);
  // Runs the model on the inputs set through the handles; true on success (errors throw).
  bool Run();
  // A predictor sharing this one's program and weights, with its own inputs and outputs.
  std::unique_ptr<Predictor> Clone() const;

  // The declared type of an input ("float32[-1, 1, 28, 28]").
  ir::TensorType input_type(const std::string& name) const;
  // Where it runs: the Config's place (the CPU when the GPU asked for is not there).
  const Place& place() const;
  const runtime::RunStats& last_run_stats() const { return stats_; }

 private:
  friend class Tensor;
  struct Shared;
  explicit Predictor(std::shared_ptr<const Shared> shared);
  std::shared_ptr<const Shared> shared_;
  std::vector<std::string> input_names_, output_names_;
  std::unordered_map<std::string, oar::Tensor> inputs_, outputs_;
  runtime::RunStats stats_;
};

std::shared_ptr<Predictor> CreatePredictor(const Config& config);

// `size` predictors over one loaded model, for one request at a time each.
class PredictorPool {
 public:
  PredictorPool(const Config& config, size_t size = 1);
  PredictorPool(const PredictorPool&) = delete;
  PredictorPool& operator=(const PredictorPool&) = delete;
  Predictor* Retrieve(size_t idx);
  size_t size() const { return preds_.size(); }

 private:
  std::vector<std::unique_ptr<Predictor>> preds_;
};

DType to_dtype(DataType t);
DataType from_dtype(DType t);

}  // namespace oar::inference
