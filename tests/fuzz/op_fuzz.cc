// The op-argument fuzzer: every op in the IR registry (oar/ir/op_registry.h) is called through its
// ExecFn with generated arguments: tensors of edge shapes (0-d, empty, size-1, non-contiguous and
// stride-0 views), every dtype, NaN/Inf values, and attributes at the edges of their kinds (0, -1,
// huge, INT64_MIN, empty and huge shapes, NaN). The contract it checks: each call returns or
// throws oar::Error. A signal (segfault, abort), a hang past the time limit or an exception that
// is not an oar::Error is a bug; the case is printed as a reproducer (op, seed, case number).
//
// Each op runs in a forked child so that one crash does not end the search; the child's address
// space is capped so that a huge-but-representable request fails as ResourceExhausted instead of
// swapping the machine.
//
//   oar_op_fuzz [--cases N] [--seed S] [--op NAME] [--timeout S] [--mem-gb G (0: no cap)] [--verbose]
// Exit status: 0 when every op kept the contract, 1 otherwise.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "oar/core/tensor.h"
#include "oar/ir/op_registry.h"
#include "oar/kernels/cpu/convert.h"
#include "oar/kernels/cpu/dispatch.h"

using namespace oar;
using ir::AttrKind;
using ir::Attribute;

namespace {

struct Options {
  int cases = 40;
  uint64_t seed = 1;
  std::string only_op;
  int timeout_s = 20;
  int mem_gb = 6;
  bool verbose = false;
};

constexpr int64_t kHuge = int64_t{1} << 40;
constexpr char kDone[] = "DONE\n";
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

class CaseMaker {
 public:
  explicit CaseMaker(uint64_t seed) : rng_(seed) {}

  template <typename T>
  const T& pick(const std::vector<T>& v) { return v[uniform(v.size())]; }
  size_t uniform(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }

  // One case's tensors share a shape and dtype half the time, so that ops get past their
  // first consistency checks and reach their kernels.
  void start_case() {
    shared_shape_ = pick(shapes());
    shared_dtype_ = chance(0.6) ? DType::Float32 : pick(dtypes());
    consistent_ = chance(0.5);
  }

  Tensor tensor(std::string& desc) {
    const Shape shape = consistent_ ? shared_shape_ : pick(shapes());
    const DType dtype = consistent_ ? shared_dtype_ : pick(dtypes());
    Tensor t = Tensor::make(shape, dtype);
    fill(t);
    desc += dtype_name(dtype) + shape_str(shape);
    // A transposed view (non-contiguous) or a stride-0 broadcast view (overlapping elements).
    if (shape.size() >= 2 && chance(0.15)) {
      Shape s = shape;
      Strides st = t.strides();
      std::swap(s[0], s[1]);
      std::swap(st[0], st[1]);
      desc += ".T";
      return Tensor::make_view(t, s, st, 0);
    }
    if (!shape.empty() && shape[0] == 1 && chance(0.15)) {
      Shape s = shape;
      Strides st = t.strides();
      s[0] = 3;
      st[0] = 0;
      desc += ".expand0";
      return Tensor::make_view(t, s, st, 0);
    }
    return t;
  }

  Attribute attribute(const ir::AttrDef& def, std::string& desc) {
    if (def.default_value && chance(0.5)) {
      desc += "default";
      return *def.default_value;
    }
    if (def.nullable && chance(0.2)) {
      desc += "none";
      return Attribute::none();
    }
    Attribute a = fresh(def.kind);
    desc += a.str();
    return a;
  }

 private:
  static const std::vector<Shape>& shapes() {
    static const std::vector<Shape> s = {{}, {0}, {1}, {3}, {2, 3}, {3, 1}, {1, 3}, {2, 0, 3},
                                         {4, 4}, {2, 3, 4}, {1, 2, 3, 4}, {2, 1, 3, 1, 2}};
    return s;
  }
  static const std::vector<DType>& dtypes() {
    static const std::vector<DType> d = {DType::Bool, DType::Int8, DType::UInt8, DType::Int16,
                                         DType::Int32, DType::Int64, DType::Float16, DType::BFloat16,
                                         DType::Float32, DType::Float64, DType::Complex64,
                                         DType::Complex128};
    return d;
  }

  // Values: small integers for integral types (they are often indices); normal numbers with a
  // few NaN/Inf for floating types.
  void fill(Tensor& t) {
    const bool specials = chance(0.2);
    kernels::dispatch_all(t.dtype(), "fuzz", [&](auto tag) {
      using T = decltype(tag);
      T* p = static_cast<T*>(t.raw_data());
      for (int64_t i = 0; i < t.numel(); ++i) {
        if constexpr (!std::is_integral_v<T>) {  // bool is integral too
          double v = std::normal_distribution<double>(0, 2)(rng_);
          if (specials && chance(0.3))
            v = pick(std::vector<double>{NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e300});
          p[i] = kernels::convert<T>(v);
        } else {
          p[i] = kernels::convert<T>(static_cast<int64_t>(uniform(9)) - 3);
        }
      }
    });
  }

  Attribute fresh(AttrKind kind) {
    switch (kind) {
      case AttrKind::None: return Attribute::none();
      case AttrKind::Bool: return Attribute::boolean(chance(0.5));
      case AttrKind::Int:
        return Attribute::integer(pick(std::vector<int64_t>{0, 1, -1, 2, 3, -3, 7, int64_t{1} << 31,
                                                            kHuge, kI64Max, kI64Min}));
      case AttrKind::Float:
        return Attribute::floating(pick(std::vector<double>{0.0, 1.0, -1.0, 0.5, 1e-12, NAN,
                                                            INFINITY, -INFINITY, 1e300}));
      case AttrKind::Str:
        return Attribute::string(pick(std::vector<std::string>{"", "mean", "sum", "none", "NCHW",
                                                               "NHWC", "bilinear", "zzz"}));
      case AttrKind::DType: return Attribute::dtype(pick(dtypes()));
      case AttrKind::IntArray:
        return Attribute::int_array(pick(std::vector<std::vector<int64_t>>{
            {}, {0}, {1}, {-1}, {2, 3}, {3, 2}, {-1, 6}, {0, 0}, {1, 1, 1, 1}, {2, 2, 2},
            {kHuge, kHuge}, {int64_t{1} << 31, int64_t{1} << 31}, {kI64Max}, {kI64Min, 1}, {-5},
            {1, -1, 1}}));
      case AttrKind::FloatArray:
        return Attribute::float_array(pick(std::vector<std::vector<double>>{
            {}, {0.5}, {1.0, 2.0}, {NAN}, {INFINITY, -1.0}, {1e300, 1e300, 1e300}}));
      case AttrKind::Scalar:
        switch (uniform(4)) {
          case 0: return Attribute::scalar(Scalar(static_cast<int64_t>(pick(std::vector<int64_t>{
                      0, 1, -1, 3, kI64Max, kI64Min}))));
          case 1: return Attribute::scalar(Scalar(pick(std::vector<double>{0.5, -2.0, NAN, INFINITY})));
          case 2: return Attribute::scalar(Scalar(chance(0.5)));
          default: return Attribute::scalar(Scalar(std::complex<double>(1.0, -1.0)));
        }
    }
    return Attribute::none();
  }

  std::mt19937_64 rng_;
  Shape shared_shape_;
  DType shared_dtype_ = DType::Float32;
  bool consistent_ = false;
};

// Runs `cases` cases of one op. The description of the case in flight is written to `report`
// (a pipe to the parent) before it runs, so that the parent can name the case that crashed.
int run_op_cases(const ir::OpDef& def, const Options& opt, int report) {
  CaseMaker maker(opt.seed ^ std::hash<std::string>()(def.name));
  for (int c = 0; c < opt.cases; ++c) {
    maker.start_case();
    std::string desc = def.name + " case " + std::to_string(c) + ":";
    std::vector<std::vector<Tensor>> slots;
    for (const auto& operand : def.operands) {
      desc += " " + operand.name + "=";
      std::vector<Tensor> slot;
      if (operand.kind == ir::OperandKind::Optional && maker.chance(0.3)) {
        desc += "none";
      } else if (operand.kind == ir::OperandKind::List) {
        const size_t n = maker.uniform(4);
        desc += "[";
        for (size_t i = 0; i < n; ++i) {
          if (i) desc += ", ";
          slot.push_back(maker.tensor(desc));
        }
        desc += "]";
      } else {
        slot.push_back(maker.tensor(desc));
      }
      slots.push_back(std::move(slot));
    }
    ir::AttributeMap attrs;
    for (const auto& a : def.attrs) {
      desc += " " + a.name + "=";
      attrs[a.name] = maker.attribute(a, desc);
    }
    desc += "\n";
    if (write(report, desc.data(), desc.size()) < 0) return 2;
    ir::MetaArgs args{&slots, &attrs, def.name.c_str()};
    try {
      def.exec(args);
    } catch (const Error&) {
      // the contract: a typed error
    } catch (const std::bad_alloc&) {
      // out of memory under the child's cap: Python's MemoryError
    } catch (const std::exception& e) {
      std::string msg = "UNTYPED EXCEPTION (" + std::string(typeid(e).name()) + "): " + e.what() + "\n";
      if (write(report, msg.data(), msg.size()) < 0) return 2;
      return 3;
    }
  }
  return 0;
}

// The last complete line of a child's report: the case that was running when it stopped.
std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  const size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

bool fuzz_op(const ir::OpDef& def, const Options& opt) {
  int fds[2];
  if (pipe(fds) != 0) { std::perror("pipe"); std::exit(2); }
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    if (opt.mem_gb > 0) {  // 0: no cap (sanitizers reserve terabytes; they cap allocations instead)
      rlimit as{static_cast<rlim_t>(opt.mem_gb) << 30, static_cast<rlim_t>(opt.mem_gb) << 30};
      setrlimit(RLIMIT_AS, &as);
    }
    alarm(static_cast<unsigned>(opt.timeout_s));
    const int rc = run_op_cases(def, opt, fds[1]);
    // The marker that the cases ran to the end: a library that calls exit() (reference LAPACK's
    // XERBLA does) would otherwise pass for a clean run.
    if (rc == 0 && write(fds[1], kDone, sizeof kDone - 1) < 0) _exit(2);
    _exit(rc);
  }
  close(fds[1]);
  std::string log;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) log.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  const bool finished = log.size() >= sizeof kDone - 1 &&
                        log.compare(log.size() - (sizeof kDone - 1), std::string::npos, kDone) == 0;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && finished) {
    if (opt.verbose) std::printf("ok    %s\n", def.name.c_str());
    return true;
  }
  std::string why;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    why = "EXITED (status 0) before its cases ended: something called exit()";
  } else if (WIFSIGNALED(status)) {
    why = WTERMSIG(status) == SIGALRM ? "HANG (over " + std::to_string(opt.timeout_s) + " s)"
                                      : std::string("SIGNAL ") + strsignal(WTERMSIG(status));
  } else {
    why = "exit status " + std::to_string(WEXITSTATUS(status));
  }
  std::printf("FAIL  %s: %s\n      at %s\n", def.name.c_str(), why.c_str(), last_line(log).c_str());
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) { std::fprintf(stderr, "%s needs a value\n", a.c_str()); std::exit(2); }
      return argv[++i];
    };
    if (a == "--cases") opt.cases = std::stoi(next());
    else if (a == "--seed") opt.seed = std::stoull(next());
    else if (a == "--op") opt.only_op = next();
    else if (a == "--timeout") opt.timeout_s = std::stoi(next());
    else if (a == "--mem-gb") opt.mem_gb = std::stoi(next());
    else if (a == "--verbose") opt.verbose = true;
    else { std::fprintf(stderr, "unknown argument %s\n", a.c_str()); return 2; }
  }
  int ops = 0, failed = 0;
  for (const ir::OpDef* def : ir::OpRegistry::global().all()) {
    if (def->exec == nullptr) continue;  // the structural ops: the executor runs those
    if (!opt.only_op.empty() && def->name != opt.only_op) continue;
    ++ops;
    if (!fuzz_op(*def, opt)) ++failed;
  }
  std::printf("op fuzz: %d ops x %d cases (seed %llu): %d failed\n", ops, opt.cases,
              static_cast<unsigned long long>(opt.seed), failed);
  return failed == 0 ? 0 : 1;
}
