#include "oar/ir/type_inference.h"

#include <algorithm>
#include <functional>
#include <set>

namespace oar::ir {

Tensor placeholder(const Shape& shape, DType dtype) {
  static const std::shared_ptr<Storage> empty =
      std::make_shared<Storage>(nullptr, 0, CPUPlace(), [](void*) {});
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = dtype;
  impl->shape = shape;
  impl->strides = contiguous_strides(shape);
  impl->numel = numel_of(shape);
  impl->storage = empty;
  return Tensor(std::move(impl));
}

Tensor retyped(const Tensor& t, DType dtype) {
  if (!t.defined() || t.dtype() == dtype) return t;
  return placeholder(t.shape(), dtype);
}

namespace {

struct DimRef {
  size_t slot, item, dim;
};

std::string types_str(const std::vector<std::vector<TensorType>>& slots) {
  std::string s;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (i) s += ", ";
    if (slots[i].size() != 1) s += "[";
    for (size_t k = 0; k < slots[i].size(); ++k) s += (k ? ", " : "") + slots[i][k].str();
    if (slots[i].size() != 1) s += "]";
  }
  return s;
}

std::vector<Meta> run(const OpDef& def, const std::vector<std::vector<TensorType>>& slots,
                      const AttributeMap& attrs, const std::vector<DimRef>& unknown,
                      const std::vector<int64_t>& sizes) {
  std::vector<std::vector<Shape>> shapes(slots.size());
  for (size_t s = 0; s < slots.size(); ++s)
    for (auto& t : slots[s]) shapes[s].push_back(t.shape);
  for (size_t u = 0; u < unknown.size(); ++u) shapes[unknown[u].slot][unknown[u].item][unknown[u].dim] = sizes[u];
  std::vector<std::vector<Tensor>> tensors(slots.size());
  for (size_t s = 0; s < slots.size(); ++s)
    for (size_t k = 0; k < slots[s].size(); ++k) tensors[s].push_back(placeholder(shapes[s][k], slots[s][k].dtype));
  MetaArgs args{&tensors, &attrs, def.name.c_str()};
  return def.meta(args);
}

// The order in which candidate assignments are tried (indices into the candidate list; 0 is the
// sentinel pair): all sentinels first, then few dims pinned to a shared candidate (the usual
// case: some unknown dims must equal one known size), then pairs of dims pinned independently,
// then everything in mixed radix; at most `budget` assignments.
std::vector<std::vector<size_t>> assignments(size_t n, size_t ncand, size_t budget) {
  std::vector<std::vector<size_t>> out;
  out.push_back(std::vector<size_t>(n, 0));
  // Subsets of size k pinned to one shared candidate c.
  std::vector<size_t> idx;
  std::function<void(size_t, size_t)> subsets = [&](size_t from, size_t k) {
    if (out.size() >= budget) return;
    if (k == 0) {
      for (size_t c = 1; c < ncand && out.size() < budget; ++c) {
        std::vector<size_t> v(n, 0);
        for (size_t i : idx) v[i] = c;
        out.push_back(std::move(v));
      }
      return;
    }
    for (size_t i = from; i + k <= n && out.size() < budget; ++i) {
      idx.push_back(i);
      subsets(i + 1, k - 1);
      idx.pop_back();
    }
  };
  for (size_t k = 1; k <= n && out.size() < budget; ++k) subsets(0, k);
  for (size_t i = 0; i < n && out.size() < budget; ++i)
    for (size_t j = i + 1; j < n && out.size() < budget; ++j)
      for (size_t ci = 1; ci < ncand && out.size() < budget; ++ci)
        for (size_t cj = 1; cj < ncand && out.size() < budget; ++cj) {
          if (ci == cj) continue;
          std::vector<size_t> v(n, 0);
          v[i] = ci;
          v[j] = cj;
          out.push_back(std::move(v));
        }
  std::vector<size_t> pick(n, 0);  // mixed radix, first dim fastest
  while (out.size() < budget) {
    size_t u = 0;
    while (u < n && ++pick[u] == ncand) pick[u++] = 0;
    if (u == n) break;
    out.push_back(pick);
  }
  return out;
}

bool is_prime(int64_t n) {
  if (n < 2) return false;
  for (int64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

}  // namespace

std::vector<TensorType> infer_types(const OpDef& def, const std::vector<std::vector<TensorType>>& slots,
                                    const AttributeMap& attrs,
                                    const std::vector<std::unique_ptr<Region>>* regions) {
  if (def.rule == TypeRule::Direct) {
    TypeArgs a{&slots, &attrs, regions, def.name.c_str()};
    return def.types(a);
  }
  OAR_ENFORCE(def.rule != TypeRule::Declared && def.meta, Unimplemented, "op '", def.name,
              "' has no type inference (it is a composite or its result shape depends on data): ",
              "its result types must be given when it is built");
  std::vector<DimRef> unknown;
  std::set<int64_t> known;  // sizes seen in operands and attributes: candidates for unknown dims
  for (size_t s = 0; s < slots.size(); ++s)
    for (size_t k = 0; k < slots[s].size(); ++k)
      for (size_t d = 0; d < slots[s][k].shape.size(); ++d) {
        int64_t v = slots[s][k].shape[d];
        OAR_ENFORCE(v >= -1, InvalidArgument, def.name, ": operand dim ", v, " is negative (only -1, ",
                    "unknown, is allowed)");
        if (v == kUnknownDim) unknown.push_back({s, k, d});
        else known.insert(v);
      }
  auto to_types = [](const std::vector<Meta>& ms) {
    std::vector<TensorType> out;
    for (auto& m : ms) out.emplace_back(m.dtype, m.shape);
    return out;
  };
  if (unknown.empty()) return to_types(run(def, slots, attrs, {}, {}));

  for (auto& [n, a] : attrs) {
    if (a.kind() == AttrKind::Int && a.as_int() > 0) known.insert(a.as_int());
    if (a.kind() == AttrKind::IntArray) {
      int64_t prod = 1, sum = 0;
      bool prod_fits = true, sum_fits = true;  // slice ends may be INT64_MAX ("to the end")
      for (int64_t v : a.as_int_array())
        if (v > 0) {
          known.insert(v);
          prod_fits = prod_fits && !__builtin_mul_overflow(prod, v, &prod);
          sum_fits = sum_fits && !__builtin_add_overflow(sum, v, &sum);
        }
      if (prod_fits && prod > 1) known.insert(prod);
      if (sum_fits && sum > 1) known.insert(sum);  // split sections
    }
  }
  known.insert(2);  // pairs (complex parts, grid coordinates) and small fixed sizes
  known.insert(3);
  // Two sentinels: primes (97 and 1009 or the next free ones) no operand or attribute mentions.
  int64_t s1 = 97;
  while (!is_prime(s1) || known.count(s1)) ++s1;
  // The second far from the first, so that a result dim that divides an unknown dim by a large
  // stride still differs between the two runs.
  int64_t s2 = 1009;
  while (!is_prime(s2) || known.count(s2)) ++s2;
  // Candidate (first run, second run) sizes for each unknown dim, the sentinels first.
  std::vector<std::pair<int64_t, int64_t>> cands = {{s1, s2}, {24 * s1, 24 * s2}, {1, 1}};
  for (int64_t k : known)  // not the "to the end" sentinels of slices (INT64_MAX and the like)
    if (k > 1 && k < (int64_t{1} << 31)) cands.push_back({k, k});
  const size_t n = unknown.size();
  constexpr size_t kMaxTries = 4096;
  std::string first_error;
  ErrorKind first_kind = ErrorKind::InvalidArgument;
  std::vector<TensorType> out;
  auto attempt = [&](const std::vector<size_t>& pick) {
    std::vector<int64_t> a(n), b(n);
    for (size_t u = 0; u < n; ++u) {
      a[u] = cands[pick[u]].first;
      b[u] = cands[pick[u]].second;
    }
    try {
      std::vector<Meta> ra = run(def, slots, attrs, unknown, a);
      std::vector<Meta> rb = run(def, slots, attrs, unknown, b);
      if (ra.size() != rb.size()) return false;
      for (size_t i = 0; i < ra.size(); ++i)
        if (ra[i].shape.size() != rb[i].shape.size()) return false;
      out = to_types(ra);
      for (size_t i = 0; i < ra.size(); ++i)
        for (size_t d = 0; d < ra[i].shape.size(); ++d)
          if (ra[i].shape[d] != rb[i].shape[d]) out[i].shape[d] = kUnknownDim;
      return true;
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Unimplemented) throw;  // no sizes can help: no inference at all
      if (first_error.empty()) {
        first_error = e.what();
        first_kind = e.kind();
      }
      return false;
    }
  };
  if (attempt(std::vector<size_t>(n, 0))) return out;  // the common case: sentinels pass
  const std::vector<std::vector<size_t>> plan = assignments(n, cands.size(), kMaxTries);
  for (size_t k = 1; k < plan.size(); ++k)
    if (attempt(plan[k])) return out;
  if (first_error.empty()) first_error = "results change rank with the unknown dims";
  detail::throw_error(first_kind, __FILE__, __LINE__, def.name, ": no sizes for the unknown dims of operand types (",
                      types_str(slots), ") pass the op's checks (tried ", s1, ", ", 24 * s1,
                      ", 1 and the known sizes); with the unknown dims as ", s1, ": ", first_error);
}

}  // namespace oar::ir
