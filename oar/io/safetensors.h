// Tensors by name in the safetensors format (an 8-byte little-endian header length, a JSON header
// {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, "__metadata__":
// {...}}, then the raw little-endian data). Used for the weights of saved models.
//
// Writes are atomic (a temporary file, fsync, rename): a crash never leaves a half-written file.
// Reading a missing, truncated or corrupted file raises an error that names the file and says
// what is wrong.
#pragma once
#include <map>
#include <string>

#include "oar/core/tensor.h"

namespace oar::io {

using TensorMap = std::map<std::string, Tensor>;
using Metadata = std::map<std::string, std::string>;

void save_safetensors(const std::string& path, const TensorMap& tensors, const Metadata& metadata = {});
TensorMap load_safetensors(const std::string& path, Metadata* metadata = nullptr);
// The same from the file's bytes; `where` names the source in errors (the fuzzer's entry point).
TensorMap parse_safetensors(const std::string& bytes, const std::string& where, Metadata* metadata = nullptr);

// The whole file; NotFound naming the file when it cannot be opened.
std::string read_file(const std::string& path, const char* what);

}  // namespace oar::io
