#include "oar/io/paddle_tensor_file.h"

#include <algorithm>
#include <cstring>

#include "oar/io/atomic_file.h"
#include "oar/io/protobuf_wire.h"

namespace oar::io {

namespace {

// Paddle's VarType codes for tensor element types.
int paddle_code(DType t) {
  switch (t) {
    case DType::Bool: return 0;
    case DType::Int16: return 1;
    case DType::Int32: return 2;
    case DType::Int64: return 3;
    case DType::Float16: return 4;
    case DType::Float32: return 5;
    case DType::Float64: return 6;
    case DType::UInt8: return 20;
    case DType::Int8: return 21;
    case DType::BFloat16: return 22;
    case DType::Complex64: return 23;
    case DType::Complex128: return 24;
    case DType::Float8E4M3FN: return 32;
    case DType::Float8E5M2: return 33;
  }
  return -1;
}

}  // namespace

bool dtype_of_paddle_code(uint64_t code, DType* out) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (static_cast<uint64_t>(paddle_code(static_cast<DType>(i))) == code) {
      *out = static_cast<DType>(i);
      return true;
    }
  return false;
}

namespace {

// A bounds-checked cursor over the file's bytes; every failure names the file and the tensor.
class Reader {
 public:
  Reader(const std::string& bytes, const std::string& where) : b_(bytes), where_(where) {}
  bool done() const { return pos_ == b_.size(); }
  size_t pos() const { return pos_; }
  void set_tensor(size_t i) { tensor_ = i; }

  template <typename T> T fixed(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, b_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  const char* take(uint64_t n, const char* what) {
    need(n, what);
    const char* p = b_.data() + pos_;
    pos_ += static_cast<size_t>(n);
    return p;
  }
  [[noreturn]] void fail(const std::string& msg) const {
    OAR_THROW(InvalidArgument, "'", where_, "' is not a valid Paddle parameter file: tensor ", tensor_, " ", msg,
              " (at byte ", pos_, " of ", b_.size(), ")");
  }

 private:
  void need(uint64_t n, const char* what) const {
    if (n > b_.size() - pos_) fail(std::string("is truncated: its ") + what + " needs " + std::to_string(n) +
                                   " bytes, " + std::to_string(b_.size() - pos_) + " remain");
  }
  const std::string& b_;
  std::string where_;
  size_t pos_ = 0;
  size_t tensor_ = 0;
};

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

template <typename T> void put(std::string& out, T v) { out.append(reinterpret_cast<const char*>(&v), sizeof(T)); }

// The TensorDesc message: data type (field 1) and dims (field 2, packed or not).
void parse_desc(std::string_view desc, const Reader& r, DType* dtype, std::vector<int64_t>* dims) {
  WireReader w(desc, [&](const std::string& msg) { r.fail("has a malformed TensorDesc: " + msg); });
  WireField f;
  bool has_type = false;
  while (w.next(f)) {
    if (f.number == 1 && f.wire_type == 0) {
      if (!dtype_of_paddle_code(f.value, dtype)) r.fail("has data type code " + std::to_string(f.value) + ", which oar does not know");
      has_type = true;
    } else if (f.number == 2) {
      w.varints(f, [&](uint64_t d) { dims->push_back(static_cast<int64_t>(d)); });
    } else {
      r.fail("has an unexpected TensorDesc field " + std::to_string(f.number));
    }
  }
  if (!has_type) r.fail("has a TensorDesc without a data type");
}

}  // namespace

bool looks_like_paddle_tensors(const std::string& bytes) {
  // Version 0, then a LoD level that is small: a safetensors header length never has zero low bytes.
  if (bytes.size() < 16) return false;
  uint32_t version;
  uint64_t lod;
  std::memcpy(&version, bytes.data(), 4);
  std::memcpy(&lod, bytes.data() + 4, 8);
  return version == 0 && lod < 16;
}

std::vector<Tensor> parse_paddle_tensors(const std::string& bytes, const std::string& where) {
  Reader r(bytes, where);
  std::vector<Tensor> out;
  while (!r.done()) {
    r.set_tensor(out.size());
    if (const auto v = r.fixed<uint32_t>("version"); v != 0) r.fail("has version " + std::to_string(v) + " (expected 0)");
    const auto lod_level = r.fixed<uint64_t>("LoD level");
    if (lod_level > 16) r.fail("has a LoD level of " + std::to_string(lod_level));
    for (uint64_t l = 0; l < lod_level; ++l) r.take(r.fixed<uint64_t>("LoD size"), "LoD offsets");
    if (const auto v = r.fixed<uint32_t>("tensor version"); v != 0)
      r.fail("has tensor version " + std::to_string(v) + " (expected 0)");
    const auto desc_size = r.fixed<int32_t>("TensorDesc size");
    if (desc_size < 0) r.fail("has a negative TensorDesc size");
    const char* desc = r.take(static_cast<uint64_t>(desc_size), "TensorDesc");
    DType dtype = DType::Float32;
    std::vector<int64_t> dims;
    parse_desc(std::string_view(desc, static_cast<size_t>(desc_size)), r, &dtype, &dims);
    uint64_t nbytes = dtype_size(dtype);
    for (int64_t d : dims) {
      if (d < 0) r.fail("has a negative dim in its shape " + shape_str(dims));
      if (__builtin_mul_overflow(nbytes, static_cast<uint64_t>(d), &nbytes))
        r.fail("has a shape " + shape_str(dims) + " too large to address");
    }
    const char* data = r.take(nbytes, "data");
    Tensor t = Tensor::make(dims, dtype);
    if (nbytes) std::memcpy(t.raw_data(), data, static_cast<size_t>(nbytes));
    out.push_back(std::move(t));
  }
  return out;
}

TensorMap parse_paddle_params(const std::string& bytes, const std::string& where, std::vector<std::string> names) {
  std::vector<Tensor> tensors = parse_paddle_tensors(bytes, where);
  std::sort(names.begin(), names.end());
  OAR_ENFORCE(tensors.size() == names.size(), InvalidArgument, "parameter file '", where, "' holds ",
              tensors.size(), " tensors but the program reads ", names.size(), " persistable parameters");
  TensorMap out;
  for (size_t i = 0; i < names.size(); ++i) out.emplace(names[i], std::move(tensors[i]));
  return out;
}

TensorMap load_paddle_params(const std::string& path, std::vector<std::string> names) {
  return parse_paddle_params(read_file(path, "parameter file"), path, std::move(names));
}

std::string serialize_paddle_tensor(const Tensor& t0) {
  const Tensor t = t0.contiguous();
  std::string desc;
  put_varint(desc, 1 << 3);
  put_varint(desc, static_cast<uint64_t>(paddle_code(t.dtype())));
  for (int64_t d : t.shape()) {
    put_varint(desc, 2 << 3);
    put_varint(desc, static_cast<uint64_t>(d));
  }
  std::string out;
  put<uint32_t>(out, 0);
  put<uint64_t>(out, 0);
  put<uint32_t>(out, 0);
  put<int32_t>(out, static_cast<int32_t>(desc.size()));
  out += desc;
  const size_t nbytes = static_cast<size_t>(t.numel()) * t.element_size();
  if (nbytes) out.append(static_cast<const char*>(t.raw_data()), nbytes);
  return out;
}

void save_paddle_params(const std::string& path, const TensorMap& tensors) {
  std::string bytes;
  for (auto& [name, t] : tensors) {
    OAR_ENFORCE(t.defined(), InvalidArgument, "save_paddle_params: tensor '", name, "' is undefined");
    bytes += serialize_paddle_tensor(t);
  }
  write_file_atomic(path, bytes);
}

}  // namespace oar::io
