#include "oar/io/protobuf_wire.h"

#include <cstring>
#include <stdexcept>

namespace oar::io {

void WireReader::fail(const std::string& msg) const {
  fail_(msg);
  throw std::logic_error("WireReader: the fail callback returned");  // unreachable by contract
}

uint64_t WireReader::varint() {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p_ == end_) fail("a varint is truncated");
    const auto c = static_cast<uint8_t>(*p_++);
    v |= static_cast<uint64_t>(c & 0x7f) << shift;
    if (!(c & 0x80)) return v;
  }
  fail("a varint is longer than 10 bytes");
}

bool WireReader::next(WireField& f) {
  if (p_ == end_) return false;
  const uint64_t key = varint();
  f.number = static_cast<uint32_t>(key >> 3);
  f.wire_type = static_cast<uint32_t>(key & 7);
  f.value = 0;
  f.bytes = {};
  switch (f.wire_type) {
    case 0: f.value = varint(); break;
    case 1:
    case 5: {
      const size_t n = f.wire_type == 1 ? 8 : 4;
      if (static_cast<size_t>(end_ - p_) < n) fail("a fixed-size field is truncated");
      std::memcpy(&f.value, p_, n);
      p_ += n;
      break;
    }
    case 2: {
      const uint64_t n = varint();
      if (n > static_cast<uint64_t>(end_ - p_)) fail("a length-delimited field runs past the end of its message");
      f.bytes = std::string_view(p_, static_cast<size_t>(n));
      p_ += n;
      break;
    }
    default: fail("field " + std::to_string(f.number) + " has wire type " + std::to_string(f.wire_type) + ", which is not valid");
  }
  return true;
}

void WireReader::varints(const WireField& f, const std::function<void(uint64_t)>& each) {
  if (f.wire_type == 0) return each(f.value);
  if (f.wire_type != 2) fail("field " + std::to_string(f.number) + " should hold varints");
  WireReader packed(f.bytes, fail_);
  while (packed.p_ != packed.end_) each(packed.varint());
}

}  // namespace oar::io
