#include "oar/ops/op_profiler.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <mutex>
#include <utility>

#include "oar/core/dtype.h"
#include "oar/ops/op_observer.h"

namespace oar::profiler {

namespace {
std::mutex g_mutex;
int g_observer = 0;
bool g_record_shapes = false;
std::vector<Event> g_events;

uint64_t this_thread_id() {
  static thread_local const uint64_t id = static_cast<uint64_t>(::syscall(SYS_gettid));
  return id;
}
}  // namespace

int64_t now_ns() { return ops::clock_ns(); }

void start(bool record_shapes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_events.clear();
  g_record_shapes = record_shapes;
  if (g_observer) return;
  g_observer = ops::add_observer([](const ops::OpCall& call) {
    Event e{std::string(call.op), "Operator", call.start_ns, call.end_ns, this_thread_id(), {}, {}};
    std::lock_guard<std::mutex> l(g_mutex);
    if (g_record_shapes) {
      for (const Tensor& t : call.inputs) {
        if (!t.defined()) continue;
        e.input_shapes.emplace_back(t.shape().begin(), t.shape().end());
        e.input_dtypes.emplace_back(dtype_name(t.dtype()));
      }
    }
    g_events.push_back(std::move(e));
  });
}

std::vector<Event> stop() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_observer) ops::remove_observer(g_observer);
  g_observer = 0;
  return std::exchange(g_events, {});
}

bool running() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_observer != 0;
}

void record_range(std::string name, std::string type, int64_t start_ns, int64_t end_ns) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_observer) return;
  g_events.push_back({std::move(name), std::move(type), start_ns, end_ns, this_thread_id(), {}, {}});
}

}  // namespace oar::profiler
