// Shape kernels that move elements: flip, tile, tril, triu, pad_nd (and pad_nd_grad),
// slice_grad and strided_slice_grad; and check_values (a guarded copy).
// Contract: see kernels.h. All but tril/triu and pad_nd_grad are one gather: each output
// dimension d has a map from its index to an index of the input's dimension d, or -1 where the
// output takes a fill value (the padding, the part a slice did not cover). Elements are moved
// as bytes, so every dtype works (the fill is the value converted to the dtype). Inputs may be
// any strided views; outputs are contiguous. The maps are the host's (oar/kernels/cpu/shape.cc,
// nn_common.cc, the slice plans of oar/ops/infer_meta/shape.cc).
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"
#include "plugins/custom_cpu/stream.h"
#include "plugins/custom_cpu/strided.h"

namespace oar_custom_cpu {
namespace {

using Maps = std::vector<std::vector<int64_t>>;

// The bytes of `value` as an element of `dtype` (at most 16).
std::array<char, 16> fill_bytes(int32_t dtype, double value) {
  std::array<char, 16> b{};
  visit_storage_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T v = convert<T>(value);
    std::memcpy(b.data(), &v, sizeof(T));
  });
  return b;
}

// out[o] = x[maps[0][o0], maps[1][o1], ...], or the fill where any map gives -1.
void gather_by_maps(const OarKernelContext* ctx, const TensorDesc& x, const TensorDesc& out, const Maps& maps,
                    double fill) {
  expect_dtype(out, x.dtype, "out");
  expect_contiguous(out, "out");
  const int nd = out.ndim();
  if (x.ndim() != nd || static_cast<int>(maps.size()) != nd) fail("x and out must have the same number of dimensions");
  // Per dimension: the element offset into x of each output index, or -1.
  auto offsets = std::make_shared<Maps>(nd);
  for (int d = 0; d < nd; ++d) {
    if (static_cast<int64_t>(maps[d].size()) != out.shape[d]) fail("internal: map %d does not fit out", d);
    for (int64_t i : maps[d]) {
      if (i >= x.shape[d]) fail("internal: map %d reads past x", d);
      (*offsets)[d].push_back(i < 0 ? -1 : i * x.strides[d]);
    }
  }
  const std::array<char, 16> fb = fill_bytes(out.dtype, fill);
  const int64_t es = static_cast<int64_t>(element_size(out.dtype));
  const std::vector<int64_t> shape = out.shape;
  const char* xp = x.data;
  char* op = out.data;
  const int64_t total = out.numel;
  launch(ctx, [offsets, fb, es, shape, xp, op, total, nd] {
    std::vector<int64_t> idx(nd, 0);
    for (int64_t k = 0; k < total; ++k) {
      int64_t off = 0;
      bool hole = false;
      for (int d = 0; d < nd; ++d) {
        const int64_t o = (*offsets)[d][idx[d]];
        if (o < 0) hole = true;
        off += o;
      }
      std::memcpy(op + k * es, hole ? fb.data() : xp + off * es, static_cast<size_t>(es));
      for (int d = nd - 1; d >= 0; --d) {
        if (++idx[d] < shape[d]) break;
        idx[d] = 0;
      }
    }
  });
}

// pad's source index of each padded position (the host's source_maps).
Maps pad_maps(const std::vector<int64_t>& in, const std::vector<int64_t>& pads, const std::string& mode) {
  Maps maps(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    const int64_t n = in[d], before = pads[2 * d], after = pads[2 * d + 1];
    for (int64_t o = 0; o < n + before + after; ++o) {
      int64_t i = o - before;
      if (i < 0 || i >= n) {
        if (mode == "constant") {
          i = -1;
        } else if (mode == "replicate") {
          i = std::clamp<int64_t>(i, 0, n - 1);
        } else if (mode == "reflect") {
          const int64_t period = 2 * (n - 1);
          i = period == 0 ? 0 : ((i % period) + period) % period;
          if (i >= n) i = period - i;
        } else {  // circular
          i = ((i % n) + n) % n;
        }
      }
      maps[d].push_back(i);
    }
  }
  return maps;
}

void check_pad_args(const std::vector<int64_t>& in, const std::vector<int64_t>& pads, const std::string& mode) {
  if (pads.size() != 2 * in.size()) fail("expected %zu padding amounts, got %zu", 2 * in.size(), pads.size());
  if (mode != "constant" && mode != "reflect" && mode != "replicate" && mode != "circular")
    fail("unknown padding mode '%s'", mode.c_str());
  for (size_t d = 0; d < in.size(); ++d) {
    const int64_t b = pads[2 * d], a = pads[2 * d + 1], n = in[d];
    if (b < 0 || a < 0) fail("padding amounts must be >= 0");
    if (b == 0 && a == 0) continue;
    if ((mode == "reflect" && (b >= n || a >= n)) || (mode == "replicate" && n == 0) ||
        (mode == "circular" && (b > n || a > n)))
      fail("%s padding (%lld, %lld) does not fit dimension %zu of size %lld", mode.c_str(), static_cast<long long>(b),
           static_cast<long long>(a), d, static_cast<long long>(n));
  }
}

std::string string_attr(const OarKernelContext* ctx, const char* name, const char* fallback) {
  const OarAttr* a = find_attr(ctx, name);
  if (a == nullptr) return fallback;
  if (a->kind != OAR_ATTR_STRING || a->s == nullptr) fail("attribute '%s' is not a string", name);
  return a->s;
}

int normalize_axis(int64_t a, int nd, const char* what) {
  if (a < -nd || a >= nd) fail("%s %lld is out of range for %d dimensions", what, static_cast<long long>(a), nd);
  return static_cast<int>(a < 0 ? a + nd : a);
}

// A slice plan's map of the input dimension: index i is the slice's j-th element when
// i = start + j * step, 0 <= j < size.
std::vector<int64_t> slice_map(int64_t n, int64_t start, int64_t step, int64_t size) {
  std::vector<int64_t> m(static_cast<size_t>(n), -1);
  for (int64_t j = 0; j < size; ++j) m[start + j * step] = j;
  return m;
}

// slice_grad / strided_slice_grad: out (input_shape) = 0 with out_grad written into the slice.
void slice_grad_impl(const OarKernelContext* ctx, bool strided) {
  const TensorDesc g = input(ctx, 0, "out_grad");
  const TensorDesc out = output(ctx);
  const std::vector<int64_t> axes = ints_attr(ctx, "axes"), starts = ints_attr(ctx, "starts"),
                             ends = ints_attr(ctx, "ends");
  const std::vector<int64_t> steps = strided ? ints_attr(ctx, "strides") : std::vector<int64_t>(axes.size(), 1);
  if (starts.size() != axes.size() || ends.size() != axes.size() || steps.size() != axes.size())
    fail("axes, starts, ends and strides must have one entry each");
  const std::vector<int64_t>& in = out.shape;
  const int nd = out.ndim();
  std::vector<int64_t> start(nd, 0), step(nd, 1), size = in;
  for (size_t k = 0; k < axes.size(); ++k) {
    const int d = normalize_axis(axes[k], nd, "axis");
    const int64_t n = in[d];
    int64_t s = starts[k], e = ends[k], st = steps[k];
    if (st == 0) fail("strides must not contain 0");
    if (!strided) {  // slice: negative ends count from the end, both clamp to [0, n]
      s = std::clamp<int64_t>(s < 0 ? s + n : s, 0, n);
      e = std::clamp<int64_t>(e < 0 ? e + n : e, 0, n);
      size[d] = std::max<int64_t>(e - s, 0);
    } else if (st > 0) {
      s = std::clamp<int64_t>(s < 0 ? s + n : s, 0, n);
      e = std::clamp<int64_t>(e < 0 ? e + n : e, 0, n);
      size[d] = e > s ? (e - s - 1) / st + 1 : 0;
    } else {  // walks down from s (at most n - 1) to just above e; e == -1 means through 0
      s = std::clamp<int64_t>(s < 0 ? s + n : s, -1, n - 1);
      if (e != -1) e = std::clamp<int64_t>(e < 0 ? e + n : e, -1, n - 1);
      size[d] = s > e ? (s - e - 1) / (-st) + 1 : 0;
    }
    start[d] = size[d] > 0 ? s : 0;
    step[d] = st;
  }
  expect_shape(g, size, "out_grad");
  Maps maps(nd);
  for (int d = 0; d < nd; ++d) maps[d] = slice_map(in[d], start[d], step[d], size[d]);
  gather_by_maps(ctx, g, out, maps, 0.0);
}

}  // namespace

// flip: x; axis. out = x reversed along the axes.
OarStatus flip_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    expect_shape(out, x.shape, "out");
    const int nd = x.ndim();
    Maps maps(nd);
    for (int d = 0; d < nd; ++d)
      for (int64_t i = 0; i < x.shape[d]; ++i) maps[d].push_back(i);
    if (nd > 0)
      for (int64_t a : ints_attr(ctx, "axis")) {
        const int d = normalize_axis(a, nd, "axis");
        std::reverse(maps[d].begin(), maps[d].end());
      }
    gather_by_maps(ctx, x, out, maps, 0.0);
  });
}

// tile: x; repeat_times. out's dims are x's (left-padded with 1s) times the repeats.
OarStatus tile_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    const int nd = out.ndim();
    if (x.ndim() > nd) fail("x %s has more dimensions than out %s", shape_str(x.shape).c_str(), shape_str(out.shape).c_str());
    x.shape.insert(x.shape.begin(), nd - x.ndim(), 1);
    x.strides.insert(x.strides.begin(), nd - static_cast<int>(x.strides.size()), 0);
    Maps maps(nd);
    for (int d = 0; d < nd; ++d) {
      if (x.shape[d] == 0 ? out.shape[d] != 0 : out.shape[d] % x.shape[d] != 0)
        fail("out %s is not a tiling of x", shape_str(out.shape).c_str());
      for (int64_t i = 0; i < out.shape[d]; ++i) maps[d].push_back(i % x.shape[d]);
    }
    gather_by_maps(ctx, x, out, maps, 0.0);
  });
}

// pad_nd: x; pads (before/after per dimension), mode, value.
OarStatus pad_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    const std::vector<int64_t> pads = ints_attr(ctx, "pads");
    const std::string mode = string_attr(ctx, "mode", "constant");
    check_pad_args(x.shape, pads, mode);
    gather_by_maps(ctx, x, out, pad_maps(x.shape, pads, mode), float_attr(ctx, "value", 0.0));
  });
}

// pad_nd_grad: out_grad; input_shape (out's shape), pads, mode. out[i] = the sum of out_grad over
// the padded positions that read input i.
OarStatus pad_grad_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc g = input(ctx, 0, "out_grad");
    const TensorDesc out = output(ctx);
    expect_dtype(out, g.dtype, "out");
    expect_contiguous(out, "out");
    const std::vector<int64_t> pads = ints_attr(ctx, "pads");
    const std::string mode = string_attr(ctx, "mode", "constant");
    check_pad_args(out.shape, pads, mode);
    auto maps = std::make_shared<const Maps>(pad_maps(out.shape, pads, mode));
    std::vector<int64_t> padded;
    for (size_t d = 0; d < out.shape.size(); ++d) padded.push_back((*maps)[d].size());
    expect_shape(g, padded, "out_grad");
    const StridedWalker<1> walk(g.shape, {g.strides});
    const std::vector<int64_t> out_strides = contiguous_strides(out.shape), gshape = g.shape;
    visit_float_dtype(g.dtype, op_name(ctx), [&](auto tag) {
      using T = decltype(tag);
      const T* gp = g.as<const T>();
      T* op = out.as<T>();
      const int64_t n_out = out.numel;
      launch(ctx, [maps, walk, out_strides, gshape, gp, op, n_out] {
        // Sequential scatter-add: reflected and circular positions can feed the same input.
        std::vector<double> acc(static_cast<size_t>(n_out), 0.0);
        const size_t nd = gshape.size();
        std::vector<int64_t> idx(nd, 0);
        walk.run([&](const std::array<int64_t, 1>& off) {
          int64_t dst = 0;
          bool hole = false;
          for (size_t d = 0; d < nd; ++d) {
            const int64_t i = (*maps)[d][idx[d]];
            if (i < 0) hole = true;
            dst += i * out_strides[d];
          }
          if (!hole) acc[dst] += convert<double>(gp[off[0]]);
          for (size_t d = nd; d-- > 0;) {
            if (++idx[d] < gshape[d]) break;
            idx[d] = 0;
          }
        });
        for (int64_t k = 0; k < n_out; ++k) op[k] = convert<T>(acc[k]);
      });
    });
  });
}

OarStatus slice_grad_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] { slice_grad_impl(ctx, false); });
}

OarStatus strided_slice_grad_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] { slice_grad_impl(ctx, true); });
}

// tril / triu: x; diagonal. The last two dimensions are matrices; tril keeps j <= i + diagonal,
// triu keeps j >= i + diagonal, the rest is 0.
OarStatus tril_triu_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const bool lower = std::string(op_name(ctx)) == "tril";
    const TensorDesc x = input(ctx, 0, "x");
    const TensorDesc out = output(ctx);
    expect_shape(out, x.shape, "out");
    expect_dtype(out, x.dtype, "out");
    expect_contiguous(out, "out");
    const int nd = x.ndim();
    if (nd < 2) fail("x must have at least 2 dimensions, got shape %s", shape_str(x.shape).c_str());
    const int64_t diagonal = int_attr(ctx, "diagonal", 0);
    const int64_t rows = x.shape[nd - 2], cols = x.shape[nd - 1];
    const StridedWalker<1> walk(x.shape, {x.strides});
    const int64_t es = static_cast<int64_t>(element_size(x.dtype));
    const char* xp = x.data;
    char* op = out.data;
    launch(ctx, [walk, es, xp, op, rows, cols, diagonal, lower] {
      int64_t k = 0;
      walk.run([&](const std::array<int64_t, 1>& off) {
        const int64_t j = k % cols, i = (k / cols) % rows;
        const bool keep = lower ? j <= i + diagonal : j >= i + diagonal;
        if (keep) std::memcpy(op + k * es, xp + off[0] * es, static_cast<size_t>(es));
        else std::memset(op + k * es, 0, static_cast<size_t>(es));
        ++k;
      });
    });
  });
}

}  // namespace oar_custom_cpu

namespace oar_custom_cpu {

// check_values: x, ok (bool); message. out = x when every ok is true; otherwise ERROR with the
// message. The one kernel that waits for its stream: the check needs ok's values, which only
// exist once the work queued before has run (a GPU backend would copy them to the host and
// wait in the same way). The host raises ValueError; through the ABI the error comes back as
// oar's External error with the message.
OarStatus check_values_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc x = input(ctx, 0, "x"), ok = input(ctx, 1, "ok");
    const TensorDesc out = output(ctx);
    expect_dtype(ok, OAR_BOOL, "ok");
    expect_shape(out, x.shape, "out");
    expect_dtype(out, x.dtype, "out");
    const OarAttr* m = find_attr(ctx, "message");
    const std::string message = m != nullptr && m->kind == OAR_ATTR_STRING && m->s != nullptr ? m->s : "check_values failed";
    std::shared_ptr<Stream> s = resolve_stream(ctx->device_id, ctx->stream);
    if (s == nullptr) fail("%p is not a stream of custom_cpu:%d", static_cast<void*>(ctx->stream), ctx->device_id);
    s->synchronize();
    bool all = true;
    const bool* okp = ok.as<const bool>();
    StridedWalker<1>(ok.shape, {ok.strides}).run([&](const std::array<int64_t, 1>& off) { all = all && okp[off[0]]; });
    if (!all) invalid_value("%s", message.c_str());
    const StridedWalker<2> walk(x.shape, {out.strides, x.strides});
    const int64_t es = static_cast<int64_t>(element_size(x.dtype));
    const char* xp = x.data;
    char* op = out.data;
    launch(ctx, [walk, es, xp, op] {
      walk.run([&](const std::array<int64_t, 2>& off) {
        std::memcpy(op + off[0] * es, xp + off[1] * es, static_cast<size_t>(es));
      });
    });
  });
}

}  // namespace oar_custom_cpu
