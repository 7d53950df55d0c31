#include "oar/io/safetensors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "oar/io/atomic_file.h"

namespace oar::io {

namespace {

// The header keeps the order it was written in (metadata first), as safetensors writers do.
using Json = nlohmann::ordered_json;

const std::vector<std::pair<DType, const char*>>& dtype_codes() {
  static const std::vector<std::pair<DType, const char*>> codes = {
      {DType::Bool, "BOOL"}, {DType::UInt8, "U8"},   {DType::Int8, "I8"},        {DType::Int16, "I16"},
      {DType::Int32, "I32"}, {DType::Int64, "I64"},  {DType::Float16, "F16"},    {DType::BFloat16, "BF16"},
      {DType::Float32, "F32"}, {DType::Float64, "F64"}, {DType::Complex64, "C64"}, {DType::Complex128, "C128"}};
  return codes;
}

const char* code_of(DType t) {
  for (auto& [d, c] : dtype_codes())
    if (d == t) return c;
  OAR_THROW(Unimplemented, "safetensors: dtype ", dtype_name(t), " cannot be saved");
}

}  // namespace

std::string read_file(const std::string& path, const char* what) {
  std::ifstream f(path, std::ios::binary);
  OAR_ENFORCE(f.good(), NotFound, what, " '", path, "' cannot be opened: ", std::strerror(errno));
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

void save_safetensors(const std::string& path, const TensorMap& tensors, const Metadata& metadata) {
  Json header = Json::object();  // ordered: the metadata first, then the tensors by name
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::string data;
  for (auto& [name, t0] : tensors) {
    OAR_ENFORCE(t0.defined(), InvalidArgument, "save_safetensors: tensor '", name, "' is undefined");
    const Tensor t = t0.contiguous();
    const size_t begin = data.size();
    const size_t nbytes = static_cast<size_t>(t.numel()) * t.element_size();
    if (nbytes) data.append(static_cast<const char*>(t.raw_data()), nbytes);
    header[name] = {{"dtype", code_of(t.dtype())}, {"shape", std::vector<int64_t>(t.shape())},
                    {"data_offsets", {begin, data.size()}}};
  }
  std::string text = header.dump();
  while (text.size() % 8) text += ' ';  // the format aligns the data to 8 bytes
  std::string bytes(8, '\0');
  const uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  write_file_atomic(path, bytes + text + data);
}

TensorMap load_safetensors(const std::string& path, Metadata* metadata) {
  return parse_safetensors(read_file(path, "parameter file"), path, metadata);
}

TensorMap parse_safetensors(const std::string& bytes, const std::string& path, Metadata* metadata) {
  OAR_ENFORCE(bytes.size() >= 8, InvalidArgument, "'", path, "' is not a valid safetensors file: it is truncated (",
              bytes.size(), " bytes, shorter than the 8-byte header length)");
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  OAR_ENFORCE(n <= bytes.size() - 8, InvalidArgument, "'", path, "' is not a valid safetensors file: the header ",
              "says it is ", n, " bytes long but only ", bytes.size() - 8, " bytes follow (truncated or not a ",
              "safetensors file)");
  const std::string header = bytes.substr(8, n);
  const size_t data_begin = 8 + n, data_size = bytes.size() - data_begin;
  const Json root = Json::parse(header, nullptr, /*allow_exceptions=*/false);
  OAR_ENFORCE(!root.is_discarded(), InvalidArgument, "'", path, "' is not a valid safetensors file: its header is ",
              "corrupted (not valid JSON)");
  OAR_ENFORCE(root.is_object(), InvalidArgument, "'", path, "': the header is not a JSON object");
  TensorMap out;
  for (auto& [name, entry] : root.items()) {
    if (name == "__metadata__") {
      if (metadata && entry.is_object())
        for (auto& [k, v] : entry.items())
          if (v.is_string()) (*metadata)[k] = v.get<std::string>();
      continue;
    }
    const std::string tensor = name;  // clang 14 lambdas cannot capture a structured binding
    auto bad = [&](const std::string& what) {
      OAR_THROW(InvalidArgument, "'", path, "' is corrupted: tensor '", tensor, "' ", what);
    };
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") || !entry.contains("data_offsets"))
      bad("lacks dtype, shape or data_offsets");
    const Json &dt = entry["dtype"], &shape = entry["shape"], &offs = entry["data_offsets"];
    if (!dt.is_string() || !shape.is_array() || !offs.is_array() || offs.size() != 2 ||
        !offs[0].is_number_unsigned() || !offs[1].is_number_unsigned())
      bad("lacks dtype, shape or data_offsets");
    const std::string code = dt.get<std::string>();
    DType dtype = DType::Float32;
    bool known = false;
    for (auto& [d, c] : dtype_codes())
      if (code == c) dtype = d, known = true;
    if (!known) bad("has an unknown dtype '" + code + "'");
    Shape s;
    for (auto& d : shape) {
      if (!d.is_number_unsigned() || d.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) bad("has a bad shape");
      s.push_back(d.get<int64_t>());
    }
    const uint64_t ubegin = offs[0].get<uint64_t>(), uend = offs[1].get<uint64_t>();
    if (ubegin > static_cast<uint64_t>(INT64_MAX) || uend > static_cast<uint64_t>(INT64_MAX)) bad("has bad data_offsets");
    const auto begin = static_cast<int64_t>(ubegin), end = static_cast<int64_t>(uend);
    // The size the shape claims, checked against the offsets before anything is allocated: a
    // damaged shape must not become a huge allocation.
    int64_t nbytes = static_cast<int64_t>(dtype_size(dtype));
    for (int64_t d : s)
      if (__builtin_mul_overflow(nbytes, d, &nbytes)) bad("has a shape " + shape_str(s) + " too large to address");
    if (begin < 0 || end < begin || end - begin != nbytes)
      bad("has data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "] that do not match its " +
          std::to_string(nbytes) + " bytes");
    if (static_cast<uint64_t>(end) > data_size)
      OAR_THROW(InvalidArgument, "'", path, "' is truncated: tensor '", name, "' needs bytes up to ", end,
                " of the data section, which has only ", data_size);
    Tensor t = Tensor::make(s, dtype);
    if (nbytes) std::memcpy(t.raw_data(), bytes.data() + data_begin + begin, static_cast<size_t>(nbytes));
    out.emplace(name, std::move(t));
  }
  return out;
}

}  // namespace oar::io
