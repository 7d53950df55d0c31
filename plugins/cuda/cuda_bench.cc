// Benchmark of liboar_cuda.so through oar's device ABI: GEMM throughput of the matmul kernel
// (cuBLASLt), memory bandwidth of a few elementwise/reduce kernels, and the host-side cost of a
// kernel call (what oar's core adds its own dispatch cost to).
//
// Usage: oar_cuda_bench [path/to/liboar_cuda.so]. GPU times come from the plug-in's events (warm
// up 3, then the mean of 10); host times from steady_clock. Prints "SKIP: no GPU" without one.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "plugins/cuda/abi_host.h"

namespace {

abi::Registry* R = nullptr;

struct Buf {
  int dtype;
  std::vector<int64_t> shape, strides;
  void* dev = nullptr;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
  }
  OarTensor view() const {
    return {dev, dtype, static_cast<int32_t>(shape.size()), shape.data(), strides.data(), numel()};
  }
};

// A device buffer of random values in [-1, 1) (xorshift; fast enough for 67M elements).
Buf random_buf(int dt, std::vector<int64_t> shape) {
  Buf b{dt, shape, abi::contiguous_strides(shape)};
  const size_t n = static_cast<size_t>(b.numel()), es = abi::esize(dt);
  std::vector<unsigned char> host(n * es);
  uint64_t s = 0x9e3779b97f4a7c15ull ^ n;
  for (size_t i = 0; i < n; ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    abi::encode(dt, static_cast<double>(s >> 11) / 4503599627370496.0 - 1.0, &host[i * es]);
  }
  abi::check_ok(R->dev->allocate(0, n * es, &b.dev), "allocate");
  abi::check_ok(R->dev->memcpy_h2d(0, nullptr, b.dev, host.data(), n * es), "memcpy_h2d");
  return b;
}

void release(Buf& b) {
  R->dev->deallocate(0, b.dev, static_cast<size_t>(b.numel()) * abi::esize(b.dtype));
}

// Mean milliseconds of fn over `iters` runs on `stream`, after 3 warm-ups, timed with events.
template <class F>
double time_ms(OarStream stream, int iters, F&& fn) {
  const OarDeviceInterface* d = R->dev;
  for (int i = 0; i < 3; ++i) fn();
  OarEvent a, b;
  d->create_event(0, &a);
  d->create_event(0, &b);
  d->record_event(0, stream, a);
  for (int i = 0; i < iters; ++i) fn();
  d->record_event(0, stream, b);
  d->synchronize_event(0, b);
  float ms = 0;
  d->elapsed_time(0, a, b, &ms);
  d->destroy_event(0, a);
  d->destroy_event(0, b);
  return ms / iters;
}

void must(const abi::Call& c, const char* what) {
  if (c.status != OAR_STATUS_OK) {
    std::fprintf(stderr, "FAIL: %s: %s\n", what, c.error.c_str());
    std::exit(1);
  }
}

void bench_gemm(OarStream stream, int dt, int64_t n) {
  Buf x = random_buf(dt, {n, n}), y = random_buf(dt, {n, n}), out = random_buf(dt, {n, n});
  abi::Attrs none;
  const double ms = time_ms(stream, 10, [&] {
    must(abi::call(*R, "matmul", dt, {x.view(), y.view()}, {out.view()}, none, stream), "matmul");
  });
  const double tflops = 2.0 * n * n * n / (ms * 1e-3) / 1e12;
  std::printf("| matmul %-8s %lld^3 | %9.3f ms | %8.1f TFLOP/s |\n", abi::dname(dt),
              static_cast<long long>(n), ms, tflops);
  release(x);
  release(y);
  release(out);
}

// GB/s counting bytes read and written.
void bench_bandwidth(OarStream stream) {
  const int64_t n = int64_t(1) << 26;  // 64M float32 = 256 MiB
  Buf a = random_buf(OAR_FLOAT32, {n}), b = random_buf(OAR_FLOAT32, {n}), c = random_buf(OAR_FLOAT32, {n});
  Buf h = random_buf(OAR_BFLOAT16, {n});
  Buf row = random_buf(OAR_FLOAT32, {1, 8192});
  Buf m = random_buf(OAR_FLOAT32, {8192, 8192});
  Buf s = random_buf(OAR_FLOAT32, {1});
  Buf rows = random_buf(OAR_FLOAT32, {8192});
  abi::Attrs none, all, last, first, to_bf16;
  all.ints("axis", {});
  last.ints("axis", {-1});
  first.ints("axis", {0});
  to_bf16.dtype("dtype", OAR_BFLOAT16);
  struct Row { const char* name; double bytes; double ms; };
  std::vector<Row> rows_out;
  auto run = [&](const char* name, double bytes, auto fn) {
    rows_out.push_back({name, bytes, time_ms(stream, 10, fn)});
  };
  run("add f32 64M contiguous", 3.0 * n * 4, [&] { must(abi::call(*R, "add", OAR_FLOAT32, {a.view(), b.view()}, {c.view()}, none, stream), "add"); });
  Buf mm{OAR_FLOAT32, {8192, 8192}, {8192, 1}, c.dev};
  run("add f32 [8192,8192]+[1,8192]", 2.0 * n * 4, [&] { must(abi::call(*R, "add", OAR_FLOAT32, {m.view(), row.view()}, {mm.view()}, none, stream), "add bcast"); });
  Buf mt{OAR_FLOAT32, {8192, 8192}, {1, 8192}, m.dev};  // transposed view
  run("assign f32 transposed 8192^2", 2.0 * n * 4, [&] { must(abi::call(*R, "assign", OAR_FLOAT32, {mt.view()}, {mm.view()}, none, stream), "assign"); });
  abi::Attrs fill;
  fill.ints("shape", {n}).scalar("fill_value", 1.5).dtype("dtype", OAR_FLOAT32);
  run("full f32 64M", 1.0 * n * 4, [&] { must(abi::call(*R, "full", OAR_FLOAT32, {}, {c.view()}, fill, stream), "full"); });
  run("cast f32->bf16 64M", 6.0 * n, [&] { must(abi::call(*R, "cast", OAR_FLOAT32, {a.view()}, {h.view()}, to_bf16, stream), "cast"); });
  run("sum f32 64M all", 4.0 * n, [&] { must(abi::call(*R, "sum", OAR_FLOAT32, {a.view()}, {s.view()}, all, stream), "sum all"); });
  run("sum f32 [8192,8192] axis -1", 4.0 * n, [&] { must(abi::call(*R, "sum", OAR_FLOAT32, {m.view()}, {rows.view()}, last, stream), "sum rows"); });
  run("sum f32 [8192,8192] axis 0", 4.0 * n, [&] { must(abi::call(*R, "sum", OAR_FLOAT32, {m.view()}, {rows.view()}, first, stream), "sum cols"); });
  for (const Row& r : rows_out)
    std::printf("| %-30s | %9.3f ms | %8.0f GB/s |\n", r.name, r.ms, r.bytes / (r.ms * 1e-3) / 1e9);
  for (Buf* p : {&a, &b, &c, &h, &row, &m, &s, &rows}) release(*p);
}

// Cost per call. "host": 500 calls without synchronising, few enough that the launch queue never
// fills, so this is the CPU time a call takes. "throughput": 10000 calls then one synchronise,
// which the GPU's per-kernel turnaround bounds once the queue is full.
void bench_launch(OarStream stream) {
  Buf a = random_buf(OAR_FLOAT32, {1000}), b = random_buf(OAR_FLOAT32, {1000}), c = random_buf(OAR_FLOAT32, {1000});
  Buf bc = random_buf(OAR_FLOAT32, {1});
  Buf x = random_buf(OAR_FLOAT32, {64, 64}), y = random_buf(OAR_FLOAT32, {64, 64}), z = random_buf(OAR_FLOAT32, {64, 64});
  Buf s = random_buf(OAR_FLOAT32, {1});
  abi::Attrs none, all;
  all.ints("axis", {});
  auto measure = [&](const char* name, auto fn) {
    using clock = std::chrono::steady_clock;
    for (int i = 0; i < 100; ++i) fn();
    R->dev->synchronize_stream(0, stream);
    const int few = 500, many = 10000;
    const auto t0 = clock::now();
    for (int i = 0; i < few; ++i) fn();
    const auto t1 = clock::now();
    R->dev->synchronize_stream(0, stream);
    const auto t2 = clock::now();
    for (int i = 0; i < many; ++i) fn();
    R->dev->synchronize_stream(0, stream);
    const auto t3 = clock::now();
    const double host_us = std::chrono::duration<double, std::micro>(t1 - t0).count() / few;
    const double total_us = std::chrono::duration<double, std::micro>(t3 - t2).count() / many;
    std::printf("| %-30s | %7.2f us/call host | %7.2f us/call throughput |\n", name, host_us, total_us);
  };
  // Direct kernel function pointers: what oar's dispatcher would call after its own lookup.
  measure("add f32 1000 (contiguous)", [&] { abi::call(*R, "add", OAR_FLOAT32, {a.view(), b.view()}, {c.view()}, none, stream); });
  measure("add f32 1000 + 0-D (strided)", [&] { abi::call(*R, "add", OAR_FLOAT32, {a.view(), Buf{OAR_FLOAT32, {}, {}, bc.dev}.view()}, {c.view()}, none, stream); });
  measure("sum f32 1000 all", [&] { abi::call(*R, "sum", OAR_FLOAT32, {a.view()}, {s.view()}, all, stream); });
  measure("matmul f32 64^3", [&] { abi::call(*R, "matmul", OAR_FLOAT32, {x.view(), y.view()}, {z.view()}, none, stream); });
  for (Buf* p : {&a, &b, &c, &bc, &x, &y, &z, &s}) release(*p);
}

// Convolution through cuDNN (when it loads) and through im2col + GEMM (OAR_CUDA_DISABLE_CUDNN=1),
// ResNet-50-like layers with batch 32: forward, input gradient and weight gradient.
void bench_conv(OarStream stream) {
  struct Layer { const char* name; int64_t C, H, M, k, stride; bool cl; };
  const Layer layers[] = {{"conv 3x3 64->64 56^2", 64, 56, 64, 3, 1, false},
                          {"conv 3x3 64->64 56^2 nhwc", 64, 56, 64, 3, 1, true},
                          {"conv 3x3 256->256 14^2 s2", 256, 28, 256, 3, 2, false},
                          {"conv 1x1 256->64 56^2", 256, 56, 64, 1, 1, false},
                          {"conv 7x7 3->64 224^2 s2", 3, 224, 64, 7, 2, false}};
  const int64_t N = 32;
  for (int dt : {OAR_FLOAT32, OAR_BFLOAT16}) {
    for (const Layer& l : layers) {
      const int64_t pad = l.k / 2, O = (l.H + 2 * pad - l.k) / l.stride + 1;
      const std::vector<int64_t> xs = l.cl ? std::vector<int64_t>{N, l.H, l.H, l.C}
                                           : std::vector<int64_t>{N, l.C, l.H, l.H};
      const std::vector<int64_t> ys = l.cl ? std::vector<int64_t>{N, O, O, l.M}
                                           : std::vector<int64_t>{N, l.M, O, O};
      Buf x = random_buf(dt, xs), w = random_buf(dt, {l.M, l.C, l.k, l.k});
      Buf y = random_buf(dt, ys), dy = random_buf(dt, ys), dx = random_buf(dt, xs);
      Buf dw = random_buf(dt, {l.M, l.C, l.k, l.k}), b = random_buf(dt, {l.M});
      abi::Attrs a;
      a.ints("stride", {l.stride, l.stride}).ints("padding", {pad, pad, pad, pad});
      a.ints("dilation", {1, 1}).add("groups", OAR_ATTR_INT, 1).boolean("channel_last", l.cl);
      const double flops = 2.0 * N * l.M * O * O * l.C * l.k * l.k;
      double ms[2][3];
      for (int mode = 0; mode < 2; ++mode) {
        setenv("OAR_CUDA_DISABLE_CUDNN", mode ? "1" : "0", 1);
        ms[mode][0] = time_ms(stream, 10, [&] {
          must(abi::call(*R, "convolution", dt, {x.view(), w.view(), b.view()}, {y.view()}, a, stream), "convolution");
        });
        ms[mode][1] = time_ms(stream, 10, [&] {
          must(abi::call(*R, "convolution_input_grad", dt, {dy.view(), w.view()}, {dx.view()}, a, stream), "input_grad");
        });
        ms[mode][2] = time_ms(stream, 10, [&] {
          must(abi::call(*R, "convolution_weight_grad", dt, {x.view(), dy.view()}, {dw.view()}, a, stream), "weight_grad");
        });
      }
      unsetenv("OAR_CUDA_DISABLE_CUDNN");
      const char* part[] = {"fwd", "dgrad", "wgrad"};
      for (int p = 0; p < 3; ++p)
        std::printf("| %-28s %-8s %-5s | %8.3f ms (%6.1f TFLOP/s) | %8.3f ms (%6.1f TFLOP/s) | %5.2fx |\n",
                    l.name, abi::dname(dt), part[p], ms[0][p], flops / (ms[0][p] * 1e-3) / 1e12,
                    ms[1][p], flops / (ms[1][p] * 1e-3) / 1e12, ms[1][p] / ms[0][p]);
      for (Buf* q : {&x, &w, &y, &dy, &dx, &dw, &b}) release(*q);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  R = &abi::load(argc, argv);
  if (R->dev->device_count() == 0) {
    std::printf("SKIP: no GPU\n");
    return 0;
  }
  std::printf("device: %s\n", R->dev->device_name ? R->dev->device_name(0) : "?");
  OarStream stream = nullptr;
  abi::check_ok(R->dev->default_stream(0, &stream), "default_stream");
  std::printf("\n| GEMM (cuBLASLt via the plug-in) | time | throughput |\n|---|---|---|\n");
  bench_gemm(stream, OAR_BFLOAT16, 8192);
  bench_gemm(stream, OAR_FLOAT16, 4096);
  bench_gemm(stream, OAR_BFLOAT16, 4096);
  bench_gemm(stream, OAR_FLOAT32, 4096);
  std::printf("\n| memory-bound kernel | time | bandwidth (read+write) |\n|---|---|---|\n");
  bench_bandwidth(stream);
  std::printf("\n| kernel call (stream not synchronised in between) | host, 500 calls | 10000 calls + sync |\n|---|---|---|\n");
  bench_launch(stream);
  std::printf("\n| convolution, batch 32 | cuDNN (if loaded) | im2col + GEMM | speed-up |\n|---|---|---|---|\n");
  bench_conv(stream);
  return 0;
}
