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

#include "oar/io/atomic_file.h"

namespace oar::io {

namespace {

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

// A JSON value, as far as a safetensors header needs: objects, arrays, strings, integers.
struct Json {
  enum Kind { Object, Array, String, Number } kind = Object;
  struct Member;                 // (key, value); a vector of an incomplete type is allowed,
  std::vector<Member> members;   // a std::pair of one is not (clang's libFuzzer build needs this)
  std::vector<Json> items;
  std::string text;
  int64_t number = 0;
};
struct Json::Member {
  std::string key;
  Json value;
};


class JsonParser {
 public:
  JsonParser(const std::string& s, const std::string& file) : s_(s), file_(file) {}

  Json parse() {
    Json v = value();
    skip();
    if (i_ != s_.size()) fail("unexpected text after the header object");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    OAR_THROW(InvalidArgument, "'", file_, "' is not a valid safetensors file: its header is corrupted (", what,
              " at byte ", i_ + 8, ")");
  }
  void skip() {
    while (i_ < s_.size() && std::strchr(" \t\r\n", s_[i_])) ++i_;
  }
  char peek() {
    skip();
    if (i_ >= s_.size()) fail("unexpected end of the header");
    return s_[i_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (s_[i_] == '\\') {
        if (++i_ >= s_.size()) break;
        const char c = s_[i_];
        out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
      } else {
        out += s_[i_];
      }
      ++i_;
    }
    if (i_ >= s_.size()) fail("unterminated string");
    ++i_;
    return out;
  }
  Json value() {
    // A header is two levels deep; a bound on nesting keeps a damaged one from overflowing the stack.
    if (++depth_ > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    struct Leave { int& d; ~Leave() { --d; } } leave{depth_};
    Json v;
    const char c = peek();
    if (c == '{') {
      ++i_;
      if (peek() == '}') return ++i_, v;
      while (true) {
        std::string k = string();
        expect(':');
        v.members.push_back(Json::Member{std::move(k), value()});
        if (peek() == ',') { ++i_; continue; }
        expect('}');
        return v;
      }
    }
    if (c == '[') {
      ++i_;
      v.kind = Json::Array;
      if (peek() == ']') return ++i_, v;
      while (true) {
        v.items.push_back(value());
        if (peek() == ',') { ++i_; continue; }
        expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.kind = Json::String;
      v.text = string();
      return v;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = Json::Number;
      size_t used = 0;
      try {
        v.number = std::stoll(s_.substr(i_, 24), &used);
      } catch (...) {
        fail("bad number");
      }
      i_ += used;
      return v;
    }
    fail(std::string("unexpected character '") + c + "'");
  }

  static constexpr int kMaxDepth = 64;
  const std::string& s_;
  const std::string& file_;
  size_t i_ = 0;
  int depth_ = 0;
};

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
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
  std::string header = "{";
  std::string data;
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (auto& [k, v] : metadata) {
      header += (first ? "" : ",") + json_string(k) + ":" + json_string(v);
      first = false;
    }
    header += "}";
  }
  bool first = metadata.empty();
  for (auto& [name, t0] : tensors) {
    OAR_ENFORCE(t0.defined(), InvalidArgument, "save_safetensors: tensor '", name, "' is undefined");
    const Tensor t = t0.contiguous();
    const size_t begin = data.size();
    const size_t nbytes = static_cast<size_t>(t.numel()) * t.element_size();
    if (nbytes) data.append(static_cast<const char*>(t.raw_data()), nbytes);
    std::string shape;
    for (int64_t d : t.shape()) shape += (shape.empty() ? "" : ",") + std::to_string(d);
    header += (first ? "" : ",") + json_string(name) + ":{\"dtype\":\"" + code_of(t.dtype()) + "\",\"shape\":[" +
              shape + "],\"data_offsets\":[" + std::to_string(begin) + "," + std::to_string(data.size()) + "]}";
    first = false;
  }
  header += "}";
  while (header.size() % 8) header += ' ';  // the format aligns the data to 8 bytes
  std::string bytes(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  write_file_atomic(path, bytes + header + data);
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
  Json root = JsonParser(header, path).parse();
  OAR_ENFORCE(root.kind == Json::Object, InvalidArgument, "'", path, "': the header is not a JSON object");
  TensorMap out;
  for (auto& [name, entry] : root.members) {
    if (name == "__metadata__") {
      if (metadata)
        for (auto& [k, v] : entry.members) (*metadata)[k] = v.text;
      continue;
    }
    const std::string& tensor = name;  // clang 14 lambdas cannot capture a structured binding
    auto bad = [&](const std::string& what) {
      OAR_THROW(InvalidArgument, "'", path, "' is corrupted: tensor '", tensor, "' ", what);
    };
    const Json *dt = nullptr, *shape = nullptr, *offs = nullptr;
    for (auto& [k, v] : entry.members) {
      if (k == "dtype") dt = &v;
      else if (k == "shape") shape = &v;
      else if (k == "data_offsets") offs = &v;
    }
    if (!dt || !shape || !offs || dt->kind != Json::String || shape->kind != Json::Array ||
        offs->kind != Json::Array || offs->items.size() != 2)
      bad("lacks dtype, shape or data_offsets");
    DType dtype = DType::Float32;
    bool known = false;
    for (auto& [d, c] : dtype_codes())
      if (dt->text == c) dtype = d, known = true;
    if (!known) bad("has an unknown dtype '" + dt->text + "'");
    Shape s;
    for (auto& d : shape->items) {
      if (d.kind != Json::Number || d.number < 0) bad("has a bad shape");
      s.push_back(d.number);
    }
    const int64_t begin = offs->items[0].number, end = offs->items[1].number;
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
