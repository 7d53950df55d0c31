#include "oar/ops/op_stats.h"

#include <mutex>
#include <utility>

#include "oar/ops/op_observer.h"

namespace oar::ops {

namespace {
std::mutex g_mutex;
int g_observer = 0;
OpStats g_stats;

int slot_of(DType t) {
  switch (t) {
    case DType::Float16: return 0;
    case DType::BFloat16: return 1;
    case DType::Float32: return 2;
    default: return 3;
  }
}
}  // namespace

void enable_op_stats() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_stats.clear();
  if (g_observer) return;
  g_observer = add_observer([](const OpCall& call) {
    const Tensor* first = nullptr;
    for (const auto* list : {&call.inputs, &call.outputs})
      for (const Tensor& t : *list)
        if (!first && t.defined()) first = &t;
    std::lock_guard<std::mutex> lock(g_mutex);
    g_stats[std::string(call.op)][first ? slot_of(first->dtype()) : 3] += 1;
  });
}

OpStats disable_op_stats() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_observer) remove_observer(g_observer);
  g_observer = 0;
  return std::exchange(g_stats, {});
}

bool op_stats_enabled() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_observer != 0;
}

}  // namespace oar::ops
