// Observers of op calls: code that sees every op as it runs (paddle.amp.debugging's operator
// statistics and nan/inf checker, FLAGS_check_nan_inf). Each generated op that runs a kernel asks
// `observing()` after its AMP decision (one global read when nobody ever observed); when true it
// runs itself with observation suspended and then shows the observers its name, inputs and
// outputs. A composite op is observed as one op (the ops it runs inside are not): its body may call
// kernels directly.
#pragma once
#include <functional>
#include <string_view>
#include <tuple>
#include <vector>

#include "oar/core/tensor.h"

namespace oar::ops {

// One observed op call: the op, its tensors, and when it ran (clock_ns() at its start and end).
struct OpCall {
  std::string_view op;
  const std::vector<Tensor>& inputs;
  const std::vector<Tensor>& outputs;
  int64_t start_ns, end_ns;
};
using OpObserver = std::function<void(const OpCall&)>;

// The observers' clock: steady-clock nanoseconds.
int64_t clock_ns();

// Adds an observer for every thread; returns its id for remove_observer.
int add_observer(OpObserver observer);
void remove_observer(int id);

extern bool g_observers_possible;
bool observing_slow();
inline bool observing() { return g_observers_possible && observing_slow(); }

// Shows the observers an op call that started at start_ns and ends now (an observer's exception
// propagates to the op's caller).
void notify(std::string_view op, std::vector<Tensor> inputs, std::vector<Tensor> outputs, int64_t start_ns);

// No observation on this thread for the scope (an op running its own kernel; an observer's work).
class ObserverSuspend {
 public:
  ObserverSuspend();
  ~ObserverSuspend();
  ObserverSuspend(const ObserverSuspend&) = delete;
  ObserverSuspend& operator=(const ObserverSuspend&) = delete;

 private:
  bool saved_;
};

// An op's result as a list of tensors.
inline std::vector<Tensor> outputs_of(const Tensor& t) { return {t}; }
inline std::vector<Tensor> outputs_of(const std::vector<Tensor>& ts) { return ts; }
template <typename... T>
std::vector<Tensor> outputs_of(const std::tuple<T...>& ts) {
  return std::apply([](const auto&... t) { return std::vector<Tensor>{t...}; }, ts);
}

// The tensor inputs of an op call as one list (Tensor[] arguments contribute their tensors).
inline void append_inputs(std::vector<Tensor>& out, const Tensor& t) { out.push_back(t); }
inline void append_inputs(std::vector<Tensor>& out, const std::vector<Tensor>& ts) {
  out.insert(out.end(), ts.begin(), ts.end());
}
template <typename... T>
std::vector<Tensor> inputs_of(const T&... ts) {
  std::vector<Tensor> out;
  (append_inputs(out, ts), ...);
  return out;
}

}  // namespace oar::ops
