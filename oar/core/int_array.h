// IntArray: a list of ints given as one int, a braced list or a vector (axes, shapes, sizes).
#pragma once
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace oar {

struct IntArray : std::vector<int64_t> {
  IntArray() = default;
  IntArray(std::initializer_list<int64_t> v) : std::vector<int64_t>(v) {}
  IntArray(const std::vector<int64_t>& v) : std::vector<int64_t>(v) {}  // NOLINT
  IntArray(int64_t v) : std::vector<int64_t>{v} {}                      // NOLINT
  IntArray(int v) : std::vector<int64_t>{v} {}                          // NOLINT
};

}  // namespace oar
