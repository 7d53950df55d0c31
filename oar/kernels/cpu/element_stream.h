// A stream of uniform (and normal) numbers for one element of a random kernel: Philox blocks
// (counter, 0), (counter, 1), ..., two 53-bit doubles per block. Giving element i the counter
// offset + i makes a draw the same whatever the thread count.
#pragma once
#include <cmath>
#include <cstdint>

#include "plugins/common/philox.h"

namespace oar::kernels {

class ElementStream {
 public:
  ElementStream(uint64_t counter, uint64_t seed) : counter_(counter), seed_(seed) {}

  double uniform() {  // [0, 1)
    if (used_ == 2) {
      block_ = oar_rng::philox4x32(counter_, next_sub_++, seed_);
      used_ = 0;
    }
    const int k = 2 * used_++;
    return oar_rng::uniform_double(block_.w[k], block_.w[k + 1]);
  }
  double normal() {  // Box-Muller on (0, 1] x [0, 1)
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }

 private:
  uint64_t counter_, seed_, next_sub_ = 0;
  int used_ = 2;
  oar_rng::Block block_{};
};

}  // namespace oar::kernels
