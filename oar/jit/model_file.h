// Saved models: `<prefix>.pdmodel` holds the program in the IR's text form after one header line
// ("oar-program 1"); `<prefix>.pdiparams` holds the parameters by name (safetensors). The file
// names follow Paddle's so that scripts and deployment configs keep their paths; the contents
// are oar's (docs/model_format.md).
#pragma once
#include <memory>
#include <string>

#include "oar/io/safetensors.h"
#include "oar/ir/program.h"

namespace oar::jit {

inline constexpr const char* kModelHeader = "oar-program 1";

struct Model {
  std::shared_ptr<ir::Program> program;
  io::TensorMap params;  // every parameter the program names, checked against its type
  io::Metadata metadata;  // the parameter file's metadata (e.g. "trainable": the trainable names)
};

// Writes both files atomically. The program must verify and name its outputs (fetch ops), and
// `params` must hold every parameter it names.
void save_model(const std::string& prefix, const ir::Program& program, const io::TensorMap& params,
                const io::Metadata& metadata = {});
// Reads and checks both files; errors name the file and what is wrong with it.
Model load_model(const std::string& model_file, const std::string& params_file);

}  // namespace oar::jit
