#include "oar/distributed/process_group_gloo.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>

#include <cstring>
#include <future>

#include "oar/core/half.h"

namespace oar::distributed {

namespace {

const char* op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "SUM";
    case ReduceOp::Max: return "MAX";
    case ReduceOp::Min: return "MIN";
    case ReduceOp::Prod: return "PROD";
    case ReduceOp::Avg: return "AVG";
  }
  return "?";
}

// c[i] = a[i] op b[i] for n elements of T; half types reduce in float. Avg sums (the caller
// divides once at the end). The op is a template argument so that each loop is a plain
// elementwise loop the compiler vectorises (Gloo calls this on every received segment).
template <typename T, ReduceOp Op>
void combine(void* c, const void* a, const void* b, size_t n) {
  T* out = static_cast<T*>(c);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  using Math = std::conditional_t<std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>, float, T>;
  for (size_t i = 0; i < n; ++i) {
    const Math u = static_cast<Math>(x[i]), v = static_cast<Math>(y[i]);
    Math r;
    if constexpr (Op == ReduceOp::Max) r = u < v ? v : u;
    else if constexpr (Op == ReduceOp::Min) r = v < u ? v : u;
    else if constexpr (Op == ReduceOp::Prod) {
      if constexpr (std::is_same_v<T, bool>) r = u && v; else r = u * v;
    } else {
      if constexpr (std::is_same_v<T, bool>) r = u || v; else r = u + v;
    }
    out[i] = static_cast<T>(r);
  }
}

using CombineFn = void (*)(void*, const void*, const void*, size_t);

template <typename T>
CombineFn combine_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::Max: return &combine<T, ReduceOp::Max>;
    case ReduceOp::Min: return &combine<T, ReduceOp::Min>;
    case ReduceOp::Prod: return &combine<T, ReduceOp::Prod>;
    default: return &combine<T, ReduceOp::Sum>;  // Avg too: the sum, divided afterwards
  }
}

CombineFn combine_for(DType t, ReduceOp op, const char* what) {
  switch (t) {
    case DType::Bool: return combine_of<bool>(op);
    case DType::Int8: return combine_of<int8_t>(op);
    case DType::UInt8: return combine_of<uint8_t>(op);
    case DType::Int16: return combine_of<int16_t>(op);
    case DType::Int32: return combine_of<int32_t>(op);
    case DType::Int64: return combine_of<int64_t>(op);
    case DType::Float16: return combine_of<float16>(op);
    case DType::BFloat16: return combine_of<bfloat16>(op);
    case DType::Float32: return combine_of<float>(op);
    case DType::Float64: return combine_of<double>(op);
    default: OAR_THROW(TypeMismatch, what, ": gloo cannot reduce ", dtype_name(t), " tensors");
  }
}

// Calls f(W{}) with an unsigned type as wide as one element: Gloo splits a reduction's buffer
// into segments by elements of the type it is given, so it must be given the element's width.
template <typename F>
void by_width(size_t element_size, F&& f) {
  switch (element_size) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
    default: OAR_THROW(TypeMismatch, "gloo: cannot reduce elements of ", element_size, " bytes");
  }
}

// x /= n in place (ReduceOp.AVG, after the sum).
void divide(const Tensor& x, int n) {
  const int64_t k = x.numel();
  auto each = [&](auto* p) { for (int64_t i = 0; i < k; ++i) p[i] = static_cast<float>(p[i]) / n; };
  switch (x.dtype()) {
    case DType::Float16: each(static_cast<float16*>(x.raw_data())); break;
    case DType::BFloat16: each(static_cast<bfloat16*>(x.raw_data())); break;
    case DType::Float32: for (int64_t i = 0; i < k; ++i) static_cast<float*>(x.raw_data())[i] /= n; break;
    case DType::Float64: for (int64_t i = 0; i < k; ++i) static_cast<double*>(x.raw_data())[i] /= n; break;
    default: OAR_THROW(TypeMismatch, "all_reduce: ReduceOp.AVG needs a floating-point tensor, got ", dtype_name(x.dtype()));
  }
}

// The tensor Gloo reads and writes: `t` itself when contiguous, else a contiguous copy that
// write_back() copies into `t` afterwards.
struct Dense {
  Tensor t, buf;
  explicit Dense(const Tensor& x) : t(x), buf(x.is_contiguous() ? x : x.contiguous()) {}
  char* data() const { return static_cast<char*>(buf.raw_data()); }
  size_t bytes() const { return static_cast<size_t>(buf.numel()) * buf.element_size(); }
  void write_back() { if (!buf.is_same(t)) t.copy_(buf); }
};

void check_host(const char* op, const Tensor& t) {
  OAR_ENFORCE(t.defined(), InvalidArgument, op, ": a tensor argument is undefined");
  OAR_ENFORCE(t.place().is_host(), Unimplemented, op, ": the gloo process group communicates host tensors; this one is on ",
              t.place().str(), " (the NCCL group for GPU tensors is not built yet)");
}

void check_like(const char* op, const Tensor& t, const Tensor& like, const char* what) {
  check_host(op, t);
  OAR_ENFORCE(t.dtype() == like.dtype() && t.numel() == like.numel(), InvalidArgument, op, ": ", what,
              " must be a ", dtype_name(like.dtype()), " tensor of ", like.numel(), " elements (as the input), got ",
              dtype_name(t.dtype()), " with ", t.numel());
}

void check_rank(const char* op, const char* arg, int r, int size) {
  OAR_ENFORCE(r >= 0 && r < size, InvalidArgument, op, ": ", arg, " must be a rank of the group, in [0, ", size,
              "), got ", r);
}

void check_count(const char* op, const char* arg, size_t n, int size) {
  OAR_ENFORCE(static_cast<int>(n) == size, InvalidArgument, op, ": ", arg, " must hold one tensor per rank (",
              size, "), got ", n);
}

// The reduction `op` over `t`'s elements, checked: AVG needs a floating dtype (it divides the sum).
CombineFn reducer_for(const char* what, DType t, ReduceOp op) {
  const CombineFn fn = combine_for(t, op, what);
  OAR_ENFORCE(op != ReduceOp::Avg || is_floating(t), TypeMismatch, what,
              ": ReduceOp.AVG needs a floating-point tensor, got ", dtype_name(t));
  return fn;
}


// The tensors (all alike) as the rows of one contiguous buffer: Gloo's input of several parts.
Tensor stack_rows(const std::vector<Tensor>& parts) {
  Tensor rows = Tensor::make({static_cast<int64_t>(parts.size()), parts[0].numel()}, parts[0].dtype());
  const size_t bytes = static_cast<size_t>(parts[0].numel()) * parts[0].element_size();
  for (size_t i = 0; i < parts.size(); ++i)
    std::memcpy(static_cast<char*>(rows.raw_data()) + i * bytes, Dense(parts[i]).data(), bytes);
  return rows;
}

// Row i of `rows` into out[i] (each out[i] as many elements as a row; strided ones written back).
void unstack_rows(const Tensor& rows, const std::vector<Tensor>& out) {
  const size_t bytes = static_cast<size_t>(rows.numel()) * rows.element_size() / out.size();
  for (size_t i = 0; i < out.size(); ++i) {
    Dense o(out[i]);
    std::memcpy(o.data(), static_cast<char*>(rows.raw_data()) + i * bytes, bytes);
    o.write_back();
  }
}

}  // namespace

ProcessGroupGloo::ProcessGroupGloo(gloo::rendezvous::Store& store, int rank, int size, const std::string& prefix,
                                   const std::string& hostname, std::chrono::milliseconds timeout)
    : ProcessGroup(rank, size), timeout_(timeout) {
  OAR_ENFORCE(size >= 1, InvalidArgument, "ProcessGroupGloo: the world size must be positive, got ", size);
  check_rank("ProcessGroupGloo", "rank", rank, size);
  gloo::transport::tcp::attr attr;
  attr.hostname = hostname;
  try {
    auto device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    context->setTimeout(timeout);
    gloo::rendezvous::PrefixStore scoped(prefix, store);
    context->connectFullMesh(scoped, device);
    context_ = context;
  } catch (const gloo::Exception& e) {
    OAR_THROW(External, "ProcessGroupGloo: rank ", rank, " of ", size, " could not connect to the others within ",
              timeout.count() / 1000.0, " s: ", e.what());
  }
  worker_ = std::thread([this] { worker_loop(); });
}

ProcessGroupGloo::~ProcessGroupGloo() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

void ProcessGroupGloo::worker_loop() {
  for (;;) {
    std::packaged_task<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || (!queue_.empty() && !busy_); });
      if (queue_.empty()) return;  // stopping, and everything queued has run
      task = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    task();
    {
      std::lock_guard<std::mutex> lock(mu_);
      busy_ = false;
    }
    cv_.notify_all();
  }
}

std::shared_ptr<Task> ProcessGroupGloo::enqueue(const char* op, std::function<void()> work, bool sync) {
  const int rank = rank_, size = size_;
  const double seconds = timeout_.count() / 1000.0;
  std::packaged_task<void()> task([op, work = std::move(work), rank, size, seconds] {
    try {
      work();
    } catch (const gloo::Exception& e) {
      // A peer that died closes its sockets; one that hangs runs out the timeout.
      OAR_THROW(External, op, ": rank ", rank, " of ", size, " failed (a rank has exited, hangs, or did not call ", op,
                "; timeout ", seconds, " s): ", e.what());
    }
  });
  auto handle = std::make_shared<Task>(task.get_future().share());
  std::unique_lock<std::mutex> lock(mu_);
  if (sync && queue_.empty() && !busy_) {
    // Nothing is ahead of it: run it here. A hop to the group's thread and back costs a
    // scheduling delay per call, which on a busy machine is milliseconds.
    busy_ = true;
    lock.unlock();
    task();
    lock.lock();
    busy_ = false;
    lock.unlock();
    cv_.notify_all();
    handle->wait();  // rethrows its error
    return handle;
  }
  queue_.push_back(std::move(task));
  lock.unlock();
  cv_.notify_all();
  if (sync) handle->wait();
  return handle;
}

std::shared_ptr<Task> ProcessGroupGloo::all_reduce(Tensor tensor, ReduceOp op, bool sync) {
  check_host("all_reduce", tensor);
  const CombineFn fn = reducer_for("all_reduce", tensor.dtype(), op);
  return enqueue("all_reduce", [this, tensor, op, fn] {
    Dense d(tensor);
    gloo::AllreduceOptions opts(context_);
    by_width(tensor.element_size(), [&](auto w) {
      opts.setOutput(reinterpret_cast<decltype(w)*>(d.data()), static_cast<size_t>(tensor.numel()));
    });
    opts.setReduceFunction(fn);
    opts.setTag(next_tag());
    opts.setTimeout(timeout_);
    gloo::allreduce(opts);
    if (op == ReduceOp::Avg) divide(d.buf, size_);
    d.write_back();
  }, sync);
}

std::shared_ptr<Task> ProcessGroupGloo::broadcast(Tensor tensor, int src, bool sync) {
  check_host("broadcast", tensor);
  check_rank("broadcast", "src", src, size_);
  return enqueue("broadcast", [this, tensor, src] {
    Dense d(tensor);
    gloo::BroadcastOptions opts(context_);
    opts.setOutput(d.data(), d.bytes());
    opts.setRoot(src);
    opts.setTag(next_tag());
    opts.setTimeout(timeout_);
    gloo::broadcast(opts);
    d.write_back();
  }, sync);
}

std::shared_ptr<Task> ProcessGroupGloo::reduce(Tensor tensor, int dst, ReduceOp op, bool sync) {
  check_host("reduce", tensor);
  check_rank("reduce", "dst", dst, size_);
  const CombineFn fn = reducer_for("reduce", tensor.dtype(), op);
  return enqueue("reduce", [this, tensor, dst, op, fn] {
    Dense d(tensor);
    // Gloo's reduce works in the output buffer on every rank: the others reduce into scratch,
    // so that their tensors stay as they were (only dst's holds the result, as in Paddle).
    Tensor scratch = rank_ == dst ? d.buf : Tensor::make(d.buf.shape(), d.buf.dtype());
    gloo::ReduceOptions opts(context_);
    by_width(tensor.element_size(), [&](auto w) {
      using W = decltype(w);
      opts.setInput(reinterpret_cast<W*>(d.data()), static_cast<size_t>(tensor.numel()));
      opts.setOutput(reinterpret_cast<W*>(scratch.raw_data()), static_cast<size_t>(tensor.numel()));
    });
    opts.setReduceFunction(fn);
    opts.setRoot(dst);
    opts.setTag(next_tag());
    opts.setTimeout(timeout_);
    gloo::reduce(opts);
    if (rank_ == dst) {
      if (op == ReduceOp::Avg) divide(d.buf, size_);
      d.write_back();
    }
  }, sync);
}

std::shared_ptr<Task> ProcessGroupGloo::all_gather(std::vector<Tensor> out, Tensor tensor, bool sync) {
  check_host("all_gather", tensor);
  check_count("all_gather", "tensor_list", out.size(), size_);
  for (const Tensor& o : out) check_like("all_gather", o, tensor, "each output");
  return enqueue("all_gather", [this, out, tensor] {
    Dense in(tensor);
    Tensor all = Tensor::make({static_cast<int64_t>(size_), tensor.numel()}, tensor.dtype());
    gloo::AllgatherOptions opts(context_);
    opts.setInput(in.data(), in.bytes());
    opts.setOutput(static_cast<char*>(all.raw_data()), in.bytes() * size_);
    opts.setTag(next_tag());
    opts.setTimeout(timeout_);
    gloo::allgather(opts);
    unstack_rows(all, out);
  }, sync);
}

std::shared_ptr<Task> ProcessGroupGloo::reduce_scatter(Tensor out, std::vector<Tensor> inputs, ReduceOp op, bool sync) {
  check_host("reduce_scatter", out);
  check_count("reduce_scatter", "tensor_list", inputs.size(), size_);
  for (const Tensor& t : inputs) check_like("reduce_scatter", t, out, "each input");
  const CombineFn fn = reducer_for("reduce_scatter", out.dtype(), op);
  // Gloo's reduce-scatter algorithms work on float only: all-reduce the stacked inputs and keep
  // this rank's part (the same result; twice the traffic of a ring reduce-scatter).
  return enqueue("reduce_scatter", [this, out, inputs, op, fn] {
    const size_t part = static_cast<size_t>(out.numel()) * out.element_size();
    Tensor all = stack_rows(inputs);
    gloo::AllreduceOptions opts(context_);
    by_width(out.element_size(), [&](auto w) {
      opts.setOutput(reinterpret_cast<decltype(w)*>(all.raw_data()), static_cast<size_t>(all.numel()));
    });
    opts.setReduceFunction(fn);
    opts.setTag(next_tag());
    opts.setTimeout(timeout_);
    gloo::allreduce(opts);
    Dense o(out);
    std::memcpy(o.data(), static_cast<char*>(all.raw_data()) + rank_ * part, part);
    if (op == ReduceOp::Avg) divide(o.buf, size_);
    o.write_back();
  }, sync);
}

std::shared_ptr<Task> ProcessGroupGloo::scatter(Tensor out, std::vector<Tensor> inputs, int src, bool sync) {
  check_host("scatter", out);
  check_rank("scatter", "src", src, size_);
  if (rank_ == src) {
    check_count("scatter", "tensor_list", inputs.size(), size_);
    for (const Tensor& t : inputs) check_like("scatter", t, out, "each input");
  }
  return enqueue("scatter", [this, out, inputs, src] {
    Dense o(out);
    std::vector<Dense> ins;
    std::vector<char*> ptrs;
    if (rank_ == src)
      for (const Tensor& t : inputs) ptrs.push_back(ins.emplace_back(t).data());
    gloo::ScatterOptions opts(context_);
    if (rank_ == src) opts.setInputs(ptrs, o.bytes());
    opts.setOutput(o.data(), o.bytes());
    opts.setRoot(src);
    opts.setTag(next_tag());
    opts.setTimeout(timeout_);
    gloo::scatter(opts);
    o.write_back();
  }, sync);
}

std::shared_ptr<Task> ProcessGroupGloo::gather(std::vector<Tensor> out, Tensor tensor, int dst, bool sync) {
  check_host("gather", tensor);
  check_rank("gather", "dst", dst, size_);
  if (rank_ == dst) {
    check_count("gather", "gather_list", out.size(), size_);
    for (const Tensor& o : out) check_like("gather", o, tensor, "each output");
  }
  return enqueue("gather", [this, out, tensor, dst] {
    Dense in(tensor);
    Tensor all = rank_ == dst ? Tensor::make({static_cast<int64_t>(size_), tensor.numel()}, tensor.dtype()) : Tensor();
    gloo::GatherOptions opts(context_);
    opts.setInput(in.data(), in.bytes());
    if (rank_ == dst) opts.setOutput(static_cast<char*>(all.raw_data()), in.bytes() * size_);
    opts.setRoot(dst);
    opts.setTag(next_tag());
    opts.setTimeout(timeout_);
    gloo::gather(opts);
    if (rank_ == dst) unstack_rows(all, out);
  }, sync);
}

std::shared_ptr<Task> ProcessGroupGloo::all_to_all(std::vector<Tensor> out, std::vector<Tensor> inputs, bool sync) {
  check_count("alltoall", "in_tensor_list", inputs.size(), size_);
  check_count("alltoall", "out_tensor_list", out.size(), size_);
  for (const Tensor& t : inputs) check_like("alltoall", t, inputs[0], "each input");
  for (const Tensor& o : out) check_like("alltoall", o, inputs[0], "each output");
  return enqueue("alltoall", [this, out, inputs] {
    const size_t part = static_cast<size_t>(inputs[0].numel()) * inputs[0].element_size();
    Tensor send = stack_rows(inputs);
    Tensor recv = Tensor::make(send.shape(), send.dtype());
    gloo::AlltoallOptions opts(context_);
    opts.setInput(static_cast<char*>(send.raw_data()), part * size_);
    opts.setOutput(static_cast<char*>(recv.raw_data()), part * size_);
    opts.setTag(next_tag());
    opts.setTimeout(timeout_);
    gloo::alltoall(opts);
    unstack_rows(recv, out);
  }, sync);
}

namespace {
// The Gloo slot of the n-th message from `src` to `dst`: both ends compute the same one, and it
// never meets the slots Gloo's collectives take from their tags.
uint64_t p2p_slot(int src, int dst, int size, uint64_t n) {
  return (uint64_t{1} << 60) | ((static_cast<uint64_t>(src) * size + dst) << 32) | (n & 0xffffffffu);
}
}  // namespace

std::shared_ptr<Task> ProcessGroupGloo::send(Tensor tensor, int dst, bool sync) {
  check_host("send", tensor);
  check_rank("send", "dst", dst, size_);
  OAR_ENFORCE(dst != rank_, InvalidArgument, "send: dst is this rank (", dst, "); send to another rank");
  return point_to_point("send", tensor, dst, /*is_send=*/true, sync);
}

std::shared_ptr<Task> ProcessGroupGloo::recv(Tensor tensor, int src, bool sync) {
  check_host("recv", tensor);
  check_rank("recv", "src", src, size_);
  OAR_ENFORCE(src != rank_, InvalidArgument, "recv: src is this rank (", src, "); receive from another rank");
  return point_to_point("recv", tensor, src, /*is_send=*/false, sync);
}

// The message is posted in order on the group's thread (so its slot follows the program order),
// and waited for on a thread of its own: a send and the recv behind it in the queue must be able
// to be outstanding at once (isend then irecv on both sides of a ring).
std::shared_ptr<Task> ProcessGroupGloo::point_to_point(const char* op, Tensor tensor, int peer, bool is_send, bool sync) {
  struct Message {
    explicit Message(const Tensor& t) : dense(t) {}
    Dense dense;
    std::unique_ptr<gloo::transport::UnboundBuffer> buffer;
  };
  auto m = std::make_shared<Message>(tensor);
  enqueue(op, [this, m, peer, is_send] {
    m->buffer = context_->createUnboundBuffer(m->dense.data(), m->dense.bytes());
    if (is_send) m->buffer->send(peer, p2p_slot(rank_, peer, size_, sent_[peer]++));
    else m->buffer->recv(peer, p2p_slot(peer, rank_, size_, received_[peer]++));
  }, /*sync=*/true);
  const int rank = rank_, size = size_;
  const auto timeout = timeout_;
  std::shared_future<void> done = std::async(std::launch::async, [m, is_send, op, rank, size, timeout] {
    try {
      if (is_send) m->buffer->waitSend(nullptr, timeout);
      else m->buffer->waitRecv(nullptr, timeout);
    } catch (const gloo::Exception& e) {
      OAR_THROW(External, op, ": rank ", rank, " of ", size, " failed (the peer has exited, hangs, or did not call the ",
                is_send ? "matching recv" : "matching send", "; timeout ", timeout.count() / 1000.0, " s): ", e.what());
    }
    if (!is_send) m->dense.write_back();
  }).share();
  auto task = std::make_shared<Task>(done);
  if (sync) task->wait();
  return task;
}

std::shared_ptr<Task> ProcessGroupGloo::barrier(bool sync) {
  return enqueue("barrier", [this] {
    gloo::BarrierOptions opts(context_);
    opts.setTag(next_tag());
    opts.setTimeout(timeout_);
    gloo::barrier(opts);
  }, sync);
}

}  // namespace oar::distributed
