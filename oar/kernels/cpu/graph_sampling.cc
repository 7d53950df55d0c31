#include "oar/kernels/cpu/graph_sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <unordered_map>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/element_stream.h"

namespace oar::kernels {
namespace {

void check_ids(const char* op, const char* arg, const Tensor& t) {
  OAR_ENFORCE(t.dtype() == DType::Int32 || t.dtype() == DType::Int64, TypeMismatch, op, ": argument '", arg,
              "' must be an int32 or int64 tensor, but received dtype ", dtype_name(t.dtype()));
  OAR_ENFORCE_ARG(t.ndim() == 1, op, ": argument '", arg, "' must be 1-D, got shape ", shape_str(t.shape()));
}

std::vector<int64_t> to_int64(const Tensor& t) {
  const Tensor c = t.contiguous();
  std::vector<int64_t> v(c.numel());
  if (c.dtype() == DType::Int32) std::copy_n(c.data<int32_t>(), v.size(), v.begin());
  else std::copy_n(c.data<int64_t>(), v.size(), v.begin());
  return v;
}

Tensor from_int64(const std::vector<int64_t>& v, DType dtype) {
  Tensor t = Tensor::make({static_cast<int64_t>(v.size())}, dtype);
  if (dtype == DType::Int32) std::copy(v.begin(), v.end(), t.data<int32_t>());
  else std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}

// Positions [0, deg) of the sample_size neighbours picked from deg (deg > sample_size).
void pick_uniform(int64_t deg, int64_t k, ElementStream& s, std::vector<int64_t>& pos) {
  // A partial Fisher-Yates shuffle: the first k places of a random permutation.
  pos.resize(deg);
  std::iota(pos.begin(), pos.end(), 0);
  for (int64_t i = 0; i < k; ++i) {
    const int64_t j = i + std::min<int64_t>(deg - i - 1, static_cast<int64_t>(s.uniform() * (deg - i)));
    std::swap(pos[i], pos[j]);
  }
  pos.resize(k);
}

void pick_weighted(const float* w, int64_t deg, int64_t k, ElementStream& s, std::vector<int64_t>& pos,
                   std::vector<std::pair<double, int64_t>>& keys) {
  // Efraimidis and Spirakis' reservoir keys: the k largest log(u) / w win (weight 0 never
  // wins while a positive one is left).
  keys.resize(deg);
  for (int64_t i = 0; i < deg; ++i) {
    const double u = 1.0 - s.uniform();  // (0, 1]
    keys[i] = {w[i] > 0 ? std::log(u) / w[i] : -std::numeric_limits<double>::infinity(), i};
  }
  std::partial_sort(keys.begin(), keys.begin() + k, keys.end(),
                    [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
  pos.resize(k);
  for (int64_t i = 0; i < k; ++i) pos[i] = keys[i].second;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> sample_neighbors(const Tensor& row, const Tensor& colptr,
                                                    const Tensor& edge_weight, const Tensor& input_nodes,
                                                    const Tensor& eids, int64_t sample_size, bool return_eids,
                                                    Generator& gen) {
  const char* op = edge_weight.defined() ? "weighted_sample_neighbors" : "sample_neighbors";
  check_ids(op, "row", row);
  check_ids(op, "colptr", colptr);
  check_ids(op, "input_nodes", input_nodes);
  OAR_ENFORCE(colptr.dtype() == row.dtype() && input_nodes.dtype() == row.dtype(), TypeMismatch, op,
              ": 'row', 'colptr' and 'input_nodes' must have the same dtype, got ", dtype_name(row.dtype()), ", ",
              dtype_name(colptr.dtype()), " and ", dtype_name(input_nodes.dtype()));
  OAR_ENFORCE_ARG(sample_size == -1 || sample_size > 0, op, ": sample_size must be -1 (every neighbour) or ",
                  "positive, got ", sample_size);
  OAR_ENFORCE_ARG(!return_eids || eids.defined(), op, ": `eids` should not be None if `return_eids` is True.");
  const std::vector<int64_t> rows = to_int64(row), ptr = to_int64(colptr), nodes = to_int64(input_nodes);
  const int64_t n_nodes = static_cast<int64_t>(ptr.size()) - 1, n_edges = static_cast<int64_t>(rows.size());
  OAR_ENFORCE_ARG(n_nodes >= 0 && ptr[0] == 0 && ptr.back() == n_edges, op, ": 'colptr' must start at 0 and end ",
                  "at the number of edges (", n_edges, ")");
  for (int64_t v = 0; v < n_nodes; ++v)
    OAR_ENFORCE_ARG(ptr[v] <= ptr[v + 1], op, ": 'colptr' must not decrease, but colptr[", v, "] = ", ptr[v],
                    " > colptr[", v + 1, "] = ", ptr[v + 1]);
  for (size_t i = 0; i < nodes.size(); ++i)
    OAR_ENFORCE(nodes[i] >= 0 && nodes[i] < n_nodes, OutOfRange, op, ": input_nodes[", i, "] = ", nodes[i],
                " is out of range: node ids must lie in [0, ", n_nodes, ")");
  std::vector<float> weights;
  if (edge_weight.defined()) {
    OAR_ENFORCE(edge_weight.dtype() == DType::Float32, TypeMismatch, op, ": argument 'edge_weight' must be ",
                "float32, but received dtype ", dtype_name(edge_weight.dtype()));
    OAR_ENFORCE_ARG(edge_weight.numel() == n_edges, op, ": 'edge_weight' must have one weight per edge (",
                    n_edges, "), got ", edge_weight.numel());
    const Tensor w = edge_weight.contiguous();
    weights.assign(w.data<float>(), w.data<float>() + n_edges);
    for (int64_t e = 0; e < n_edges; ++e)
      OAR_ENFORCE_ARG(weights[e] >= 0 && std::isfinite(weights[e]), op, ": edge weights must be finite and ",
                      "non-negative, got edge_weight[", e, "] = ", weights[e]);
  }
  std::vector<int64_t> edge_ids;
  if (return_eids) {
    check_ids(op, "eids", eids);
    OAR_ENFORCE_ARG(eids.numel() == n_edges, op, ": 'eids' must have one id per edge (", n_edges, "), got ",
                    eids.numel());
    edge_ids = to_int64(eids);
  }

  // How many each node keeps (known before drawing), then where its picks go.
  const int64_t n = static_cast<int64_t>(nodes.size());
  std::vector<int64_t> start(n + 1, 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t deg = ptr[nodes[i] + 1] - ptr[nodes[i]];
    start[i + 1] = start[i] + (sample_size < 0 ? deg : std::min(deg, sample_size));
  }
  std::vector<int64_t> picked(start[n]), picked_eids(return_eids ? start[n] : 0);
  const uint64_t seed = gen.seed(), offset = gen.reserve(static_cast<uint64_t>(n));
  parallel_for(0, n, 64, [&](int64_t b, int64_t e) {
    std::vector<int64_t> pos;
    std::vector<std::pair<double, int64_t>> keys;
    for (int64_t i = b; i < e; ++i) {
      const int64_t first = ptr[nodes[i]], deg = ptr[nodes[i] + 1] - first, k = start[i + 1] - start[i];
      if (k == deg) {
        pos.resize(deg);
        std::iota(pos.begin(), pos.end(), 0);
      } else {
        ElementStream s(offset + static_cast<uint64_t>(i), seed);
        if (weights.empty()) pick_uniform(deg, k, s, pos);
        else pick_weighted(weights.data() + first, deg, k, s, pos, keys);
      }
      for (int64_t j = 0; j < k; ++j) {
        picked[start[i] + j] = rows[first + pos[j]];
        if (return_eids) picked_eids[start[i] + j] = edge_ids[first + pos[j]];
      }
    }
  });
  std::vector<int64_t> counts(n);
  for (int64_t i = 0; i < n; ++i) counts[i] = start[i + 1] - start[i];
  return {from_int64(picked, row.dtype()), from_int64(counts, DType::Int32),
          return_eids ? from_int64(picked_eids, eids.dtype()) : Tensor::make({0}, row.dtype())};
}

std::tuple<Tensor, Tensor, Tensor> reindex_graph(const Tensor& x, const std::vector<Tensor>& neighbors,
                                                 const std::vector<Tensor>& counts) {
  const char* op = neighbors.size() == 1 ? "reindex_graph" : "reindex_heter_graph";
  check_ids(op, "x", x);
  OAR_ENFORCE_ARG(neighbors.size() == counts.size(), op, ": 'neighbors' and 'count' must be lists of the same ",
                  "length, got ", neighbors.size(), " and ", counts.size());
  const std::vector<int64_t> nodes = to_int64(x);
  std::unordered_map<int64_t, int64_t> id;
  id.reserve(nodes.size() * 2);
  std::vector<int64_t> out_nodes;
  auto new_id = [&](int64_t v) {
    auto [it, inserted] = id.try_emplace(v, static_cast<int64_t>(out_nodes.size()));
    if (inserted) out_nodes.push_back(v);
    return it->second;
  };
  for (int64_t v : nodes) new_id(v);
  std::vector<int64_t> src, dst;
  for (size_t t = 0; t < neighbors.size(); ++t) {
    check_ids(op, "neighbors", neighbors[t]);
    check_ids(op, "count", counts[t]);
    OAR_ENFORCE(neighbors[t].dtype() == x.dtype(), TypeMismatch, op, ": 'neighbors' must have x's dtype (",
                dtype_name(x.dtype()), "), got ", dtype_name(neighbors[t].dtype()));
    const std::vector<int64_t> nb = to_int64(neighbors[t]), cnt = to_int64(counts[t]);
    OAR_ENFORCE_ARG(cnt.size() == nodes.size(), op, ": 'count' must have one entry per node of x (",
                    nodes.size(), "), got ", cnt.size());
    int64_t total = 0;
    for (int64_t c : cnt) {
      OAR_ENFORCE_ARG(c >= 0 && !__builtin_add_overflow(total, c, &total), op,
                      ": 'count' must hold non-negative counts that add up to the neighbours, got ", c);
    }
    OAR_ENFORCE_ARG(total == static_cast<int64_t>(nb.size()), op, ": the counts add up to ", total,
                    " but 'neighbors' has ", nb.size(), " nodes");
    for (int64_t v : nb) src.push_back(new_id(v));
    for (size_t i = 0; i < cnt.size(); ++i) dst.insert(dst.end(), cnt[i], static_cast<int64_t>(i));
  }
  return {from_int64(src, x.dtype()), from_int64(dst, x.dtype()), from_int64(out_nodes, x.dtype())};
}

}  // namespace oar::kernels
