// oar programs as Paddle's PIR program files (`<prefix>.json`), so that real Paddle
// (`paddle.jit.load`, Paddle Inference) runs what oar saved. Each oar op is written as the Paddle
// ops that compute it (one translator per oar op in paddle_export.cc; `linear` becomes matmul +
// add, a pool's kernel size a full_int_array, a reverse RNN a flip around Paddle's rnn), with the
// attributes Paddle's own files carry. The inverse of paddle_import.h.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "oar/ir/program.h"

namespace oar::jit::paddle {

// The ops of `program` that have no Paddle form, as "name (why)"; empty when export_program
// will succeed.
std::vector<std::string> unexportable_ops(const ir::Program& program);

// The program as the text of a PIR JSON file. `trainable` names the parameters Paddle should
// train (the others are written with stop_gradient set). Throws Unimplemented naming the first
// op without a Paddle form.
std::string export_program(const ir::Program& program, const std::set<std::string>& trainable);

}  // namespace oar::jit::paddle
