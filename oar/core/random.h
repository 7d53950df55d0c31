// Counter-based random numbers (Philox4x32-10). Element i of a draw depends only on
// (seed, offset, i), so the same seed gives the same numbers for any thread count. The block and
// the per-element transforms live in plugins/common/philox.h, shared with the device plug-ins.
#pragma once
#include <array>
#include <cstdint>
#include <mutex>

namespace oar {

std::array<uint32_t, 4> philox4x32(uint64_t counter, uint64_t subsequence, uint64_t key);

class Generator {
 public:
  explicit Generator(uint64_t seed = 34342423252ULL) : seed_(seed) {}
  void manual_seed(uint64_t seed);
  uint64_t seed() const { return seed_; }
  uint64_t offset() const { return offset_; }
  void set_state(uint64_t seed, uint64_t offset);
  // Reserves `n` counters for one draw; returns the first. Thread safe.
  uint64_t reserve(uint64_t n);

 private:
  std::mutex mu_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

Generator& default_generator();

// Helpers turning Philox outputs into numbers.
inline float uniform_float(uint32_t x) { return (x >> 8) * (1.0f / 16777216.0f); }  // [0, 1)
inline double uniform_double(uint32_t hi, uint32_t lo) {
  return ((static_cast<uint64_t>(hi) << 21) ^ (lo >> 11)) * (1.0 / 9007199254740992.0);
}

}  // namespace oar
