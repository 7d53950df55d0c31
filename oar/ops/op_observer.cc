#include "oar/ops/op_observer.h"

#include <chrono>
#include <mutex>
#include <utility>

namespace oar::ops {

namespace {
struct Registry {
  std::mutex mutex;
  std::vector<std::pair<int, OpObserver>> observers;
  int next_id = 1;
};
Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: ops may run during static destruction
  return *r;
}
thread_local bool t_suspended = false;
}  // namespace

bool g_observers_possible = false;

int add_observer(OpObserver observer) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const int id = r.next_id++;
  r.observers.emplace_back(id, std::move(observer));
  g_observers_possible = true;
  return id;
}

void remove_observer(int id) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::erase_if(r.observers, [id](const auto& e) { return e.first == id; });
  g_observers_possible = !r.observers.empty();
}

bool observing_slow() { return !t_suspended; }

int64_t clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void notify(std::string_view op, std::vector<Tensor> inputs, std::vector<Tensor> outputs, int64_t start_ns) {
  const OpCall call{op, inputs, outputs, start_ns, clock_ns()};
  std::vector<OpObserver> observers;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto& e : r.observers) observers.push_back(e.second);
  }
  const ObserverSuspend off;  // an observer's own ops are not observed
  for (const OpObserver& o : observers) o(call);
}

ObserverSuspend::ObserverSuspend() : saved_(t_suspended) { t_suspended = true; }
ObserverSuspend::~ObserverSuspend() { t_suspended = saved_; }

}  // namespace oar::ops
