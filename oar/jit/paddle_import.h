// Paddle programs as oar programs: each Paddle PIR op (paddle_pir.h) is mapped onto oar's ops
// (one translator per Paddle op name, in paddle_import.cc). Paddle programs spell some arguments
// as values made by other ops (a reshape's shape by full_int_array, a scale by full, a state's
// shape by shape64 + slice + stack); the importer folds those at import time, so the oar program
// holds attributes where oar's ops take them. A Paddle op without a translator, or one used in a
// way oar cannot express, raises Unimplemented naming the op and where it sits.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "oar/io/safetensors.h"
#include "oar/ir/program.h"
#include "oar/jit/paddle_pir.h"

namespace oar::jit::paddle {

struct ImportedProgram {
  std::shared_ptr<ir::Program> program;
  // The names of the persistable parameters, whose tensors the .pdiparams file holds (sorted).
  std::vector<std::string> persistable_parameters;
  // Those Paddle marks trainable (the others are buffers, e.g. batch norm statistics).
  std::vector<std::string> trainable_parameters;
  // Constant tensors the import turned into parameters (named "_const_N").
  io::TensorMap constants;
};

ImportedProgram import_program(const PirProgram& pir, const std::string& where);

// The Paddle op names the importer maps (for documentation and tests).
std::vector<std::string> supported_ops();

}  // namespace oar::jit::paddle
