// Saved models. oar writes Paddle's formats when every op of the program has a Paddle form
// (paddle_export.h): `<prefix>.json` (a PIR program) + `<prefix>.pdiparams` (Paddle's tensor
// stream), which real Paddle loads. Otherwise oar's own: `<prefix>.pdmodel` holding the program in
// the IR's text form after one header line ("oar-program 1") + `<prefix>.pdiparams` as safetensors.
// The reader takes both, and Paddle's own files (paddle_import.h). docs/model_format.md.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "oar/io/safetensors.h"
#include "oar/ir/program.h"

namespace oar::jit {

inline constexpr const char* kModelHeader = "oar-program 1";

struct Model {
  std::shared_ptr<ir::Program> program;
  io::TensorMap params;  // every parameter the program names, checked against its type
  io::Metadata metadata;  // the parameter file's metadata (e.g. "trainable": the trainable names)
};

// Which format save_model writes for `program`: empty when Paddle's, else the ops without a
// Paddle form ("name (why)") that make it write oar's own.
std::vector<std::string> ops_without_paddle_form(const ir::Program& program);

// Writes both files atomically (the program file: `<prefix>.json` in Paddle's format, else
// `<prefix>.pdmodel`). The program must verify and name its outputs (fetch ops), and `params` must
// hold every parameter it names; metadata["trainable"] (comma-separated names) marks the trainable
// ones. Returns the path of the program file written.
std::string save_model(const std::string& prefix, const ir::Program& program, const io::TensorMap& params,
                       const io::Metadata& metadata = {});
// Reads and checks both files, in any of the formats above; errors name the file and what is wrong.
Model load_model(const std::string& model_file, const std::string& params_file);

}  // namespace oar::jit
