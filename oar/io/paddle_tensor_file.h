// Paddle's combined parameter file (`.pdiparams`, what `paddle.jit.save` and Paddle Inference
// use): the tensors one after another, without names; the reader pairs them with the program's
// persistable parameter names sorted by byte order (Paddle's rule). Each tensor is
//   uint32 version (0) | uint64 LoD level L | L × (uint64 byte count, that many bytes of offsets)
//   | uint32 version (0) | int32 n | n bytes of a TensorDesc protobuf (field 1: the data type as
//   Paddle's VarType code, field 2: the dims, int64) | the raw little-endian data.
// Writes are atomic (a temporary file, fsync, rename). A truncated or foreign file raises an
// error naming the file, the tensor and what is wrong.
#pragma once
#include <string>
#include <vector>

#include "oar/io/safetensors.h"

namespace oar::io {

// Paddle's VarType codes for element types (FP32 is 5, INT64 3, ...): false for codes oar lacks.
bool dtype_of_paddle_code(uint64_t code, DType* out);

// Whether `bytes` starts like a Paddle tensor stream (so callers can tell it from safetensors).
bool looks_like_paddle_tensors(const std::string& bytes);

// All tensors of a stream, in file order.
std::vector<Tensor> parse_paddle_tensors(const std::string& bytes, const std::string& where);
// The tensors of a stream named by `names` in sorted order (the count must match).
TensorMap parse_paddle_params(const std::string& bytes, const std::string& where, std::vector<std::string> names);
// The same from the file at `path`.
TensorMap load_paddle_params(const std::string& path, std::vector<std::string> names);
// Writes `tensors` in name order (std::map's), atomically.
void save_paddle_params(const std::string& path, const TensorMap& tensors);
// The bytes of one tensor in the stream format (shared by the writer and the tests).
std::string serialize_paddle_tensor(const Tensor& t);

}  // namespace oar::io
