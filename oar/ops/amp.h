// Automatic mixed precision (auto_cast): the dtype each op computes in while it is on.
//
// Every generated op with tensor inputs asks `amp::active()` first (one thread-local read when
// AMP was never used in the process). When AMP is on, the op asks `amp::compute_dtype` for the
// dtype it should run in, casts its floating inputs to it, and calls itself again with AMP
// suspended, as Paddle's eager ops do: the ops a composite runs inside are not cast again.
//
// The decision, per op (Paddle 3.x's GetAmpDestDtype):
//   on the level's black list              -> float32 (O1: `amp: black` and `amp: float32` ops;
//                                              O2: only `amp: float32`, Paddle's EXTRA_BLACK_LIST)
//   O2 with use_promote=false              -> the AMP dtype for every other op
//   white list (matmul, conv2d, linear...) -> the AMP dtype (float16 or bfloat16)
//   anything else                          -> OD: float32; O1/O2: float32 when any castable input
//                                              is float32, else the AMP dtype ("promote")
// Only float32/float16/bfloat16 inputs are ever cast: float64, integers and complex pass as they
// are. An op's default category is its spec's `amp:` field; the user's custom white/black lists
// (names of oar ops or Paddle's kernel names, see python/oar/amp) override it per op.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "oar/core/tensor.h"

namespace oar::amp {

enum class Level { O0, OD, O1, O2 };

// The default category of an op, from its spec's `amp:` field.
enum class Category {
  Gray,     // no field: promote (see above)
  White,    // `amp: white`
  Black,    // `amp: black`: float32 at O1
  Float32,  // `amp: float32`: float32 at O1 and O2 (Paddle's EXTRA_BLACK_LIST)
};

struct State {
  Level level = Level::O0;
  DType dtype = DType::Float16;  // the low-precision dtype: Float16 or BFloat16
  bool use_promote = true;
  std::unordered_set<std::string> custom_white;  // oar op names
  std::unordered_set<std::string> custom_black;
};

// This thread's AMP state (auto_cast sets it and restores the previous one on exit).
const State& state();
void set_state(State s);

// auto_cast for C++ code, for a scope: `amp::AutoCast bf16(amp::Level::O1, DType::BFloat16);`
// (restores the previous state on exit, so scopes nest).
class AutoCast {
 public:
  AutoCast(Level level, DType dtype, bool use_promote = true);
  explicit AutoCast(State state);  // a whole state (custom lists too), e.g. the predictor's
  ~AutoCast();
  AutoCast(const AutoCast&) = delete;
  AutoCast& operator=(const AutoCast&) = delete;

 private:
  State saved_;
};

// True while AMP may change what this thread's ops compute in.
extern bool g_amp_possible;
bool active_slow();
inline bool active() { return g_amp_possible && active_slow(); }

// The dtype op `op` (default category `category`) computes in, given its AMP-castable inputs
// (null and undefined entries are skipped; `lists` are its Tensor[] inputs).
DType compute_dtype(std::string_view op, Category category, std::initializer_list<const Tensor*> inputs,
                    std::initializer_list<const std::vector<Tensor>*> lists = {});

// x cast to `dtype` when x is float32/float16/bfloat16 of another dtype; x itself otherwise.
Tensor cast_to(const Tensor& x, DType dtype);
std::vector<Tensor> cast_to(const std::vector<Tensor>& xs, DType dtype);

// Turns AMP off for this thread for the scope: an op running under a decision it already took,
// a backward pass, an in-place op (Paddle casts neither in-place ops nor gradients).
class Suspend {
 public:
  Suspend();
  ~Suspend();
  Suspend(const Suspend&) = delete;
  Suspend& operator=(const Suspend&) = delete;

 private:
  Level saved_;
};

// The default category of every op that has one (white, black, float32), from the specs.
const std::vector<std::pair<std::string, Category>>& default_categories();

}  // namespace oar::amp
