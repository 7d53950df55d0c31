// The profiler's recorder (paddle.profiler, python/oar/profiler): while it runs, every observed
// op call (oar/ops/op_observer.h) and every range the caller records (RecordEvent, the Python
// layer's Forward/Backward/Optimization/Dataloader phases) becomes an Event with its thread and
// times. Summaries and trace files are made from the events by the Python layer. Off, it costs
// nothing: no observer is installed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace oar::profiler {

struct Event {
  std::string name;
  std::string type;  // "Operator" for op calls; the caller's type for ranges ("PythonUserDefined", ...)
  int64_t start_ns = 0, end_ns = 0;
  uint64_t thread_id = 0;  // the OS thread id (Python's threading.get_native_id())
  std::vector<std::vector<int64_t>> input_shapes;  // op calls, when recording shapes
  std::vector<std::string> input_dtypes;
};

// Starts recording (clearing earlier events); record_shapes keeps each op's input shapes and dtypes.
void start(bool record_shapes);
// Stops recording and hands over the events, in the order they ended.
std::vector<Event> stop();
bool running();
// Records a range [start_ns, end_ns] on the calling thread (ignored when not running).
void record_range(std::string name, std::string type, int64_t start_ns, int64_t end_ns);
// The events' clock (steady nanoseconds; the op observers' clock).
int64_t now_ns();

}  // namespace oar::profiler
