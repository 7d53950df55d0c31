// Paddle's legacy program files (`.pdmodel`: a ProgramDesc protobuf, what Paddle 2.x and Paddle 3
// with FLAGS_enable_pir_api=0 write), rewritten into the PIR form of paddle_pir.h so that one
// importer (paddle_import.h) maps both: named variables become SSA values, feed/fetch ops become
// data/fetch, persistable variables become parameters, and each legacy op becomes the PIR ops of
// the same computation (elementwise_add with an axis: a reshape of Y, then add; pool2d's ksize
// attribute: a full_int_array input; ...). A legacy op without a rewrite raises Unimplemented
// naming it and its position.
#pragma once
#include <string>

#include "oar/jit/paddle_pir.h"

namespace oar::jit::paddle {

// Whether `bytes` starts like a ProgramDesc (its first field: a block, field 1, length-delimited).
bool looks_like_program_desc(const std::string& bytes);
PirProgram parse_program_desc(const std::string& bytes, const std::string& where);

}  // namespace oar::jit::paddle
