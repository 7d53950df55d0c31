#include "oar/ir/type_inference.h"

#include <algorithm>
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
      for (int64_t v : a.as_int_array())
        if (v > 0) {
          known.insert(v);
          prod *= v;
          sum += v;
        }
      if (prod > 1) known.insert(prod);
      if (sum > 1) known.insert(sum);  // split sections
    }
  }
  known.insert(2);  // pairs (complex parts, grid coordinates) and small fixed sizes
  known.insert(3);
  // Two sentinels: primes no operand or attribute mentions.
  int64_t s1 = 97;
  while (!is_prime(s1) || known.count(s1)) ++s1;
  int64_t s2 = s1 + 1;
  while (!is_prime(s2) || known.count(s2)) ++s2;
  // Candidate (first run, second run) sizes for each unknown dim, the sentinels first.
  std::vector<std::pair<int64_t, int64_t>> cands = {{s1, s2}, {24 * s1, 24 * s2}, {1, 1}};
  for (int64_t k : known)
    if (k > 1) cands.push_back({k, k});
  const size_t n = unknown.size();
  std::vector<size_t> pick(n, 0);
  std::string first_error;
  ErrorKind first_kind = ErrorKind::InvalidArgument;
  constexpr int kMaxTries = 4096;
  for (int tries = 0; tries < kMaxTries; ++tries) {
    std::vector<int64_t> a(n), b(n);
    for (size_t u = 0; u < n; ++u) {
      a[u] = cands[pick[u]].first;
      b[u] = cands[pick[u]].second;
    }
    try {
      std::vector<Meta> ra = run(def, slots, attrs, unknown, a);
      std::vector<Meta> rb = run(def, slots, attrs, unknown, b);
      if (ra.size() == rb.size()) {
        bool same_ranks = true;
        for (size_t i = 0; i < ra.size(); ++i) same_ranks &= ra[i].shape.size() == rb[i].shape.size();
        if (same_ranks) {
          std::vector<TensorType> out = to_types(ra);
          for (size_t i = 0; i < ra.size(); ++i)
            for (size_t d = 0; d < ra[i].shape.size(); ++d)
              if (ra[i].shape[d] != rb[i].shape[d]) out[i].shape[d] = kUnknownDim;
          return out;
        }
      }
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Unimplemented) throw;  // no sizes can help: no inference at all
      if (first_error.empty()) {
        first_error = e.what();
        first_kind = e.kind();
      }
    }
    // Next assignment (mixed radix, first unknown dim fastest).
    size_t u = 0;
    while (u < n && ++pick[u] == cands.size()) pick[u++] = 0;
    if (u == n) break;
  }
  if (first_error.empty()) first_error = "results change rank with the unknown dims";
  detail::throw_error(first_kind, __FILE__, __LINE__, def.name, ": no sizes for the unknown dims of operand types (",
                      types_str(slots), ") pass the op's checks (tried ", s1, ", ", 24 * s1,
                      ", 1 and the known sizes); with the unknown dims as ", s1, ": ", first_error);
}

}  // namespace oar::ir
