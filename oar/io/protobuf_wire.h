// Reading protocol-buffer messages field by field (the wire format: each field a varint key
// (number << 3 | wire type) then a varint, a fixed 32/64-bit value or length-delimited bytes).
// For Paddle's file formats (TensorDesc in .pdiparams, ProgramDesc in legacy .pdmodel): two small
// schemas that do not warrant generated code and a codegen step. Every read is bounds-checked;
// malformed input throws InvalidArgument through `fail`.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace oar::io {

struct WireField {
  uint32_t number = 0;
  uint32_t wire_type = 0;  // 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32
  uint64_t value = 0;      // varint and fixed values
  std::string_view bytes;  // length-delimited payload
};

class WireReader {
 public:
  using Fail = std::function<void(const std::string&)>;  // must throw
  WireReader(std::string_view data, Fail fail) : p_(data.data()), end_(data.data() + data.size()), fail_(std::move(fail)) {}

  // The next field, or false at the end of the message.
  bool next(WireField& f);
  // A packed repeated varint field's values (or one value of an unpacked one).
  void varints(const WireField& f, const std::function<void(uint64_t)>& each);
  uint64_t varint();

 private:
  [[noreturn]] void fail(const std::string& msg) const;
  const char* p_;
  const char* end_;
  Fail fail_;
};

}  // namespace oar::io
