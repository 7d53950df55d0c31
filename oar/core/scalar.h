// Scalar: a number that remembers whether it came as bool, integer, float or complex,
// so that tensor-scalar ops can follow Paddle's promotion rules.
#pragma once
#include <complex>
#include <cstdint>
#include <type_traits>

#include "oar/core/dtype.h"
#include "oar/core/numeric_cast.h"

namespace oar {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Float, Complex };
  Scalar() : kind_(Kind::Int), i_(0) {}
  Scalar(bool b) : kind_(Kind::Bool), i_(b) {}  // NOLINT
  template <typename I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  Scalar(I i) : kind_(Kind::Int), i_(static_cast<int64_t>(i)) {}  // NOLINT
  Scalar(double d) : kind_(Kind::Float), d_(d) {}  // NOLINT
  Scalar(float f) : kind_(Kind::Float), d_(f) {}   // NOLINT
  Scalar(std::complex<double> c) : kind_(Kind::Complex), re_(c.real()), im_(c.imag()) {}  // NOLINT

  Kind kind() const { return kind_; }
  bool is_integral() const { return kind_ == Kind::Int || kind_ == Kind::Bool; }
  bool is_floating() const { return kind_ == Kind::Float; }
  bool is_complex() const { return kind_ == Kind::Complex; }

  template <typename T> T to() const {
    if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
      using R = typename T::value_type;
      if (kind_ == Kind::Complex) return T(static_cast<R>(re_), static_cast<R>(im_));
      return T(static_cast<R>(to<double>()), R(0));
    } else {
      switch (kind_) {
        case Kind::Bool:
        case Kind::Int: return static_cast<T>(i_);
        case Kind::Float: return numeric_cast<T>(d_);
        case Kind::Complex: return numeric_cast<T>(re_);
      }
      return T();
    }
  }
  // Natural dtype of the literal: bool, int64, the default float dtype or complex64.
  DType natural_dtype() const;

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
  double re_ = 0, im_ = 0;
};

}  // namespace oar
