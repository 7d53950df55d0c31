// Typed errors. Each names what is wrong, what was expected, what came, and where.
// Bindings map them to Python: InvalidArgument->ValueError, OutOfRange->IndexError,
// Unimplemented->NotImplementedError, TypeMismatch->TypeError, ResourceExhausted->MemoryError,
// External->OSError, everything else->RuntimeError.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace oar {

enum class ErrorKind {
  InvalidArgument, OutOfRange, NotFound, Unimplemented, PreconditionNotMet, ResourceExhausted,
  External, TypeMismatch
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& msg) : std::runtime_error(msg), kind_(kind) {}
  ErrorKind kind() const { return kind_; }
 private:
  ErrorKind kind_;
};

const char* error_kind_name(ErrorKind k);  // "InvalidArgument", ...

namespace detail {
inline void append(std::ostringstream&) {}
template <typename T, typename... Rest>
void append(std::ostringstream& os, const T& v, const Rest&... rest) { os << v; append(os, rest...); }

template <typename... Args>
[[noreturn]] void throw_error(ErrorKind kind, const char* file, int line, const Args&... args) {
  std::ostringstream os;
  os << "(" << error_kind_name(kind) << ") ";
  append(os, args...);
  os << " [" << file << ":" << line << "]";
  throw Error(kind, os.str());
}
}  // namespace detail

}  // namespace oar

#define OAR_THROW(KIND, ...) \
  ::oar::detail::throw_error(::oar::ErrorKind::KIND, __FILE__, __LINE__, __VA_ARGS__)

// OAR_ENFORCE(cond, Kind, message pieces...): throw Kind with the message when cond is false.
#define OAR_ENFORCE(COND, KIND, ...) \
  do { if (__builtin_expect(!(COND), 0)) OAR_THROW(KIND, __VA_ARGS__); } while (0)
#define OAR_ENFORCE_ARG(COND, ...) OAR_ENFORCE(COND, InvalidArgument, __VA_ARGS__)
#define OAR_ENFORCE_EQ(A, B, KIND, ...)                                                       \
  do {                                                                                        \
    const auto& oar_a_ = (A); const auto& oar_b_ = (B);                                       \
    if (__builtin_expect(!(oar_a_ == oar_b_), 0))                                             \
      OAR_THROW(KIND, __VA_ARGS__, " (expected ", #A, " == ", #B, ", got ", oar_a_, " vs ",  \
                oar_b_, ")");                                                                 \
  } while (0)
