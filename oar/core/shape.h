// Shapes and strides: small vectors of int64 with Paddle's printing ([2, 3]).
#pragma once
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

namespace oar {

using Shape = std::vector<int64_t>;
using Strides = std::vector<int64_t>;

// The element count; throws ResourceExhausted when it overflows int64.
int64_t numel_of(const Shape& s);
// a * b for sizes computed from user input; throws ResourceExhausted naming op and what on overflow.
int64_t checked_mul(int64_t a, int64_t b, const char* op, const char* what);
int64_t checked_add(int64_t a, int64_t b, const char* op, const char* what);
Strides contiguous_strides(const Shape& s);
std::string shape_str(const Shape& s);  // "[2, 3]"

// Normalise a possibly negative axis against rank; throws InvalidArgument naming op and arg.
int64_t normalize_axis(int64_t axis, int64_t rank, const char* op, const char* arg = "axis");

// NumPy broadcasting of two shapes; throws InvalidArgument naming op and both shapes.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);

inline std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << shape_str(s); }

}  // namespace oar
