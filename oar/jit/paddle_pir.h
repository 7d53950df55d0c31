// Paddle's PIR program files (`<prefix>.json`, what `paddle.jit.save` writes in Paddle 3.x): the
// JSON read into plain structures, which paddle_import.cc maps onto oar's ops. The file holds
// {"base_code": {"magic": "pir", "version": N, ...}, "program": {"regions": [...]}}; a region has
// blocks, a block has "args" and "ops", an op is {"#": "<dialect id>.<name>" ("p": a parameter),
// "A": attributes [{"N": name, "AT": {"#": kind, "D": data}}], "I": input value ids ("%": 0 is an
// absent optional), "O": outputs [{"%": id, "TT": type}], "regions"}.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "oar/core/dtype.h"

namespace oar::jit::paddle {

// A value's type: a dense tensor (dtype, dims with -1 for unknown) or a vector of types
// (builtin.combine's result).
struct PirType {
  bool is_vector = false;
  DType dtype = DType::Float32;
  std::vector<int64_t> dims;
  std::vector<PirType> elements;
  std::string str() const;
};

// An attribute, by kind; arrays of ints or bools land in `ints`, of floats in `floats`.
struct PirAttr {
  enum Kind { Bool, Int, Float, Str, DType, Ints, Floats, Other } kind = Other;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;
  oar::DType dtype = oar::DType::Float32;
  std::vector<int64_t> ints;
  std::vector<double> floats;
};

struct PirBlock;

struct PirOp {
  std::string name;  // "pd_op.conv2d", "builtin.combine", "builtin.parameter", ...
  std::map<std::string, PirAttr> attrs;
  std::vector<int64_t> inputs;  // value ids; 0: absent
  std::vector<std::pair<int64_t, PirType>> outputs;
  std::vector<std::vector<PirBlock>> regions;
  // builtin.parameter: the parameter's name and whether it is persistable (in the .pdiparams).
  std::string parameter_name;
  bool persistable = true;
  bool trainable = true;
  size_t index = 0;  // position in its block, for error messages

  const PirAttr* attr(const std::string& n) const;
  // Where the op sits, for errors: "pd_op.rnn (op 31, layer '/LSTM/')".
  std::string where() const;
};

struct PirBlock {
  std::vector<std::pair<int64_t, PirType>> args;
  std::vector<PirOp> ops;
};

struct PirProgram {
  int64_t version = 0;
  PirBlock block;  // the top block
};

// Whether `bytes` is a PIR JSON program (a JSON object whose base_code.magic is "pir").
bool looks_like_pir_json(const std::string& bytes);
// Parses the file's bytes; errors name `where` and what is malformed.
PirProgram parse_pir_json(const std::string& bytes, const std::string& where);

}  // namespace oar::jit::paddle
