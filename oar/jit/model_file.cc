#include "oar/jit/model_file.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "oar/io/atomic_file.h"
#include "oar/io/paddle_tensor_file.h"
#include "oar/ir/block.h"
#include "oar/ir/operation.h"
#include "oar/ir/parser.h"
#include "oar/ir/verifier.h"
#include "oar/jit/paddle_export.h"
#include "oar/jit/paddle_import.h"
#include "oar/jit/paddle_program_desc.h"

namespace oar::jit {

namespace {

// The parameter ops' names and types.
std::vector<std::pair<std::string, ir::TensorType>> parameters_of(const ir::Program& p) {
  std::vector<std::pair<std::string, ir::TensorType>> out;
  for (auto* op : p.all_ops())
    if (op->name() == "parameter") out.emplace_back(op->attr("name")->as_string("name"), op->result(0)->type());
  return out;
}

void check_params(const ir::Program& p, const io::TensorMap& params, const std::string& where) {
  for (auto& [name, type] : parameters_of(p)) {
    auto it = params.find(name);
    OAR_ENFORCE(it != params.end(), NotFound, where, " lacks parameter '", name, "' (", type.str(),
                ") that the program reads");
    const Tensor& t = it->second;
    OAR_ENFORCE(t.dtype() == type.dtype && std::vector<int64_t>(t.shape()) == type.shape, InvalidArgument, where,
                ": parameter '", name, "' is ", dtype_name(t.dtype()), shape_str(t.shape()), " but the program reads ",
                type.str());
  }
}


// The other format's program file from an earlier save would be read first, or beside weights
// that are not its own: it goes.
void remove_stale(const std::string& path) {
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
}

// The parameter file beside a Paddle program: Paddle's tensor stream (names from the program),
// or safetensors (oar's own files before the Paddle formats).
io::TensorMap load_params(const std::string& params_file, const std::vector<std::string>& persistable,
                          io::Metadata* metadata) {
  const std::string bytes = io::read_file(params_file, "parameter file");
  if (io::looks_like_paddle_tensors(bytes) || bytes.empty()) return io::parse_paddle_params(bytes, params_file, persistable);
  return io::parse_safetensors(bytes, params_file, metadata);
}

Model load_paddle_model(const std::string& model_file, const paddle::PirProgram& pir, const std::string& params_file) {
  paddle::ImportedProgram imported = paddle::import_program(pir, model_file);
  Model m;
  m.program = imported.program;
  m.params = load_params(params_file, imported.persistable_parameters, &m.metadata);
  std::string trainable;
  for (const std::string& name : imported.trainable_parameters) trainable += (trainable.empty() ? "" : ",") + name;
  m.metadata["trainable"] = trainable;
  for (auto& [name, t] : imported.constants) m.params[name] = t;
  check_params(*m.program, m.params, "parameter file '" + params_file + "'");
  return m;
}


// jit.save writes `<prefix>.json` when Paddle can read the program and `<prefix>.pdmodel` when
// not (removing the other): a path naming the one that is not there reads the one that is, so
// that deployment scripts keep working whichever the model needed.
std::string existing_program_file(const std::string& path) {
  if (std::filesystem::exists(path)) return path;
  for (auto [from, to] : {std::pair<const char*, const char*>{".pdmodel", ".json"}, {".json", ".pdmodel"}}) {
    const std::string ext(from);
    if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) {
      const std::string other = path.substr(0, path.size() - ext.size()) + to;
      if (std::filesystem::exists(other)) return other;
    }
  }
  return path;
}

}  // namespace

std::vector<std::string> ops_without_paddle_form(const ir::Program& program) {
  return paddle::unexportable_ops(program);
}

std::string save_model(const std::string& prefix, const ir::Program& program, const io::TensorMap& params,
                       const io::Metadata& metadata) {
  ir::verify(program);
  OAR_ENFORCE(!program.outputs().empty(), InvalidArgument, "save_model: the program has no outputs (fetch ops)");
  check_params(program, params, "save_model: the parameters given");
  io::TensorMap used;
  for (auto& [name, type] : parameters_of(program)) used[name] = params.at(name);
  if (ops_without_paddle_form(program).empty()) {
    std::set<std::string> trainable;
    if (auto it = metadata.find("trainable"); it != metadata.end()) {
      for (size_t begin = 0; begin <= it->second.size();) {
        const size_t end = std::min(it->second.find(',', begin), it->second.size());
        if (end > begin) trainable.insert(it->second.substr(begin, end - begin));
        begin = end + 1;
      }
    } else {
      for (auto& [name, t] : used) trainable.insert(name);
    }
    const std::string text = paddle::export_program(program, trainable);
    io::save_paddle_params(prefix + ".pdiparams", used);
    io::write_file_atomic(prefix + ".json", text);
    remove_stale(prefix + ".pdmodel");
    return prefix + ".json";
  }
  io::Metadata meta = metadata;
  meta["format"] = "oar";
  io::save_safetensors(prefix + ".pdiparams", used, meta);
  io::write_file_atomic(prefix + ".pdmodel", std::string(kModelHeader) + "\n" + program.str());
  remove_stale(prefix + ".json");
  return prefix + ".pdmodel";
}

Model load_model(const std::string& model_file_arg, const std::string& params_file) {
  const std::string model_file = existing_program_file(model_file_arg);
  const std::string text = io::read_file(model_file, "model file");
  if (paddle::looks_like_pir_json(text))
    return load_paddle_model(model_file, paddle::parse_pir_json(text, model_file), params_file);
  if (text.rfind(kModelHeader, 0) != 0 && paddle::looks_like_program_desc(text))
    return load_paddle_model(model_file, paddle::parse_program_desc(text, model_file), params_file);
  const size_t eol = text.find('\n');
  OAR_ENFORCE(text.compare(0, eol, kModelHeader) == 0, InvalidArgument, "'", model_file,
              "' is neither a Paddle program (PIR .json or ProgramDesc .pdmodel) nor an oar model file (its first line should be '",
              kModelHeader, "'", text.empty() ? "; the file is empty" : "", ")");
  Model m;
  try {
    m.program = std::shared_ptr<ir::Program>(ir::parse(text.substr(eol + 1)));
    ir::verify(*m.program);
  } catch (const Error& e) {
    // Line numbers of the text form start after the header line.
    throw Error(e.kind(), std::string("model file '") + model_file + "' is corrupted or truncated: " + e.what());
  }
  OAR_ENFORCE(!m.program->outputs().empty(), InvalidArgument, "model file '", model_file,
              "' names no outputs (fetch ops)");
  m.params = load_params(params_file, m.program->parameter_names(), &m.metadata);
  check_params(*m.program, m.params, "parameter file '" + params_file + "'");
  return m;
}

}  // namespace oar::jit
