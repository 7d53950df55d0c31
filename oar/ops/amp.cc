// auto_cast's per-op dtype decision (see amp.h for the rules).
#include "oar/ops/amp.h"

#include "oar/ops/generated/api/elementwise.h"

namespace oar::amp {

namespace {
thread_local State t_state;

bool is_amp_castable(DType t) { return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16; }
}  // namespace

bool g_amp_possible = false;

const State& state() { return t_state; }

void set_state(State s) {
  if (s.level != Level::O0) g_amp_possible = true;
  t_state = std::move(s);
}

bool active_slow() { return t_state.level != Level::O0; }

DType compute_dtype(std::string_view op, Category category, std::initializer_list<const Tensor*> inputs,
                    std::initializer_list<const std::vector<Tensor>*> lists) {
  const State& st = t_state;
  // The user's lists win over the op's default; a custom black op is float32 at every level.
  if (!st.custom_white.empty() || !st.custom_black.empty()) {
    const std::string name(op);
    if (st.custom_white.count(name)) category = Category::White;
    else if (st.custom_black.count(name)) category = Category::Float32;
  }
  // Paddle promotes at O1 and OD always, at O2 only with use_promote.
  const bool promote = st.level != Level::O2 || st.use_promote;
  const bool float32_here =  // the op is on this level's black list
      category == Category::Float32 || (category == Category::Black && st.level == Level::O1);
  if (float32_here) return DType::Float32;
  if (!promote) return st.dtype;  // O2 without promotion: everything else in the low dtype
  if (category == Category::White) return st.dtype;
  if (st.level == Level::OD) return DType::Float32;
  // Gray (and black at O2): float32 when any castable input is float32, else the low dtype.
  auto is_f32 = [](const Tensor* t) { return t && t->defined() && t->dtype() == DType::Float32; };
  for (const Tensor* t : inputs)
    if (is_f32(t)) return DType::Float32;
  for (const std::vector<Tensor>* l : lists)
    for (const Tensor& t : *l)
      if (is_f32(&t)) return DType::Float32;
  return st.dtype;
}

Tensor cast_to(const Tensor& x, DType dtype) {
  if (!x.defined() || x.dtype() == dtype || !is_amp_castable(x.dtype())) return x;
  return oar::cast(x, dtype);
}

std::vector<Tensor> cast_to(const std::vector<Tensor>& xs, DType dtype) {
  std::vector<Tensor> out;
  out.reserve(xs.size());
  for (const Tensor& x : xs) out.push_back(cast_to(x, dtype));
  return out;
}

AutoCast::AutoCast(State state) : saved_(t_state) {
  OAR_ENFORCE_ARG(state.dtype == DType::Float16 || state.dtype == DType::BFloat16,
                  "amp::AutoCast: dtype should be float16 or bfloat16, got ", dtype_name(state.dtype));
  set_state(std::move(state));
}

AutoCast::AutoCast(Level level, DType dtype, bool use_promote)
    : AutoCast(State{level, dtype, use_promote, {}, {}}) {}
AutoCast::~AutoCast() { t_state = std::move(saved_); }

Suspend::Suspend() : saved_(t_state.level) { t_state.level = Level::O0; }
Suspend::~Suspend() { t_state.level = saved_; }

}  // namespace oar::amp
