#include "oar/pass/drr.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "oar/core/error.h"
#include "oar/ir/builder.h"
#include "oar/pass/rewrite_helpers.h"

namespace oar::pass::drr {

ir::Value* Match::value(const std::string& name) const {
  auto it = values_.find(name);
  OAR_ENFORCE(it != values_.end(), NotFound, "drr::Match: no value is bound to placeholder '", name, "'");
  return it->second;
}

const ir::TensorType& Match::type(const std::string& name) const { return value(name)->type(); }

const ir::Attribute& Match::attr(const std::string& name) const {
  auto it = attrs_.find(name);
  OAR_ENFORCE(it != attrs_.end(), NotFound, "drr::Match: no attribute is bound to '", name, "'");
  return it->second;
}

Pattern& Pattern::source(std::string op, std::vector<std::string> operands, std::map<std::string, AttrPattern> attrs,
                         std::vector<std::string> results) {
  OAR_ENFORCE(!results.empty(), InvalidArgument, "drr pattern '", name_, "': source op '", op,
              "' must name its results");
  source_.push_back({std::move(op), std::move(operands), std::move(attrs), std::move(results)});
  return *this;
}

Pattern& Pattern::constraint(Constraint c) {
  constraints_.push_back(std::move(c));
  return *this;
}

Pattern& Pattern::compute(Compute c) {
  computes_.push_back(std::move(c));
  return *this;
}

Pattern& Pattern::result(std::string op, std::vector<std::string> operands, std::map<std::string, ResultAttr> attrs,
                         std::vector<std::string> results) {
  result_.push_back({std::move(op), std::move(operands), std::move(attrs), std::move(results)});
  return *this;
}

const std::string& Pattern::root_name() const {
  OAR_ENFORCE(!source_.empty(), PreconditionNotMet, "drr pattern '", name_, "' has no source ops");
  return source_.back().op;
}

std::pair<int, size_t> Pattern::source_def(const std::string& name) const {
  for (size_t i = 0; i < source_.size(); ++i)
    for (size_t r = 0; r < source_[i].results.size(); ++r)
      if (source_[i].results[r] == name) return {static_cast<int>(i), r};
  return {-1, 0};
}

namespace {

bool bind_value(std::map<std::string, ir::Value*>& values, const std::string& name, ir::Value* v) {
  auto [it, fresh] = values.emplace(name, v);
  return fresh || it->second == v;
}

}  // namespace

// Matches source op i against `op` (its operands recursively through earlier source ops).
bool Pattern::match_op(size_t i, ir::Operation* op, Match& m) const {
  const SourceOp& s = source_[i];
  if (op->name() != s.op || m.ops_[i] != nullptr) return m.ops_[i] == op;
  if (std::find(m.ops_.begin(), m.ops_.end(), op) != m.ops_.end()) return false;  // one op, one source op
  if (op->num_results() != s.results.size() || op->num_slots() != s.operands.size()) return false;
  m.ops_[i] = op;
  for (size_t r = 0; r < s.results.size(); ++r)
    if (!bind_value(m.values_, s.results[r], op->result(r))) return false;
  for (const auto& [attr, pat] : s.attrs) {
    const ir::Attribute* a = op->attr(attr);
    if (a == nullptr) return false;
    if (pat.equals && *pat.equals != *a) return false;
    if (!pat.bind.empty()) {
      auto [it, fresh] = m.attrs_.emplace(pat.bind, *a);
      if (!fresh && it->second != *a) return false;
    }
  }
  for (size_t k = 0; k < s.operands.size(); ++k) {
    const std::string& nm = s.operands[k];
    const std::vector<ir::Value*> vs = op->slot(k);
    if (nm == "none") {
      if (!vs.empty()) return false;
      continue;
    }
    if (vs.size() != 1) return false;
    ir::Value* v = vs[0];
    if (nm == "_") continue;
    if (!bind_value(m.values_, nm, v)) return false;
    auto [j, r] = source_def(nm);
    if (j < 0) continue;  // a leaf placeholder
    if (j >= static_cast<int>(i)) return false;  // source ops are in definition order
    ir::Operation* def = v->defining_op();
    if (def == nullptr || def->parent_block() != m.ops_.back()->parent_block() || v->index() != r) return false;
    if (!match_op(static_cast<size_t>(j), def, m)) return false;
  }
  return true;
}

bool Pattern::match(ir::Operation* root, Match& m) const {
  m = Match();
  if (source_.empty() || root->name() != source_.back().op) return false;
  m.ops_.assign(source_.size(), nullptr);
  if (!match_op(source_.size() - 1, root, m)) return false;
  // Every source op must have been reached from the root.
  return std::find(m.ops_.begin(), m.ops_.end(), nullptr) == m.ops_.end();
}

bool Pattern::apply(ir::Operation* root) const {
  Match m;
  if (!match(root, m)) return false;
  const std::set<ir::Operation*> matched(m.ops_.begin(), m.ops_.end());
  // The values the rewrite must provide: every source result used outside the match.
  std::vector<std::string> outputs;
  for (const SourceOp& s : source_)
    for (const std::string& r : s.results) {
      bool external = false;
      for (const ir::Use& u : m.values_.at(r)->uses()) external |= !matched.count(u.user);
      if (!external) continue;
      bool rebuilt = false;
      for (const ResultOp& ro : result_) rebuilt |= std::count(ro.results.begin(), ro.results.end(), r) > 0;
      if (!rebuilt) return false;
      outputs.push_back(r);
    }
  for (const Constraint& c : constraints_)
    if (!c(m)) return false;
  for (const Compute& c : computes_)
    if (!c(m)) return false;

  ir::Block* block = root->parent_block();
  ir::Builder b(block);
  b.set_insertion_point(block, iterator_of(root));
  std::map<std::string, ir::Value*> built;
  std::vector<ir::Operation*> created;
  auto lookup = [&](const std::string& nm) -> ir::Value* {
    auto it = built.find(nm);
    return it != built.end() ? it->second : m.value(nm);
  };
  auto undo = [&]() {
    for (auto it = created.rbegin(); it != created.rend(); ++it) block->erase(*it);
  };
  try {
    for (const ResultOp& ro : result_) {
      ir::Operands operands;
      for (const std::string& nm : ro.operands) {
        if (nm == "none") operands.push_back({});
        else operands.push_back({lookup(nm)});
      }
      ir::AttributeMap attrs;
      for (const auto& [an, ra] : ro.attrs) {
        if (ra.constant) attrs[an] = *ra.constant;
        else if (ra.fn) attrs[an] = ra.fn(m);
        else attrs[an] = m.attr(ra.from);
      }
      ir::Operation* op = b.create(ro.op, operands, attrs);
      created.push_back(op);
      OAR_ENFORCE(op->num_results() == ro.results.size(), InvalidArgument, "drr pattern '", name_,
                  "': result op '", ro.op, "' has ", op->num_results(), " results, the pattern names ",
                  ro.results.size());
      for (size_t r = 0; r < ro.results.size(); ++r) built[ro.results[r]] = op->result(r);
    }
  } catch (const Error&) {
    // The result pattern does not fit these operands (a type-inference check failed): no match.
    undo();
    return false;
  }
  for (const std::string& out : outputs)
    if (built.at(out)->type() != m.value(out)->type()) {
      undo();
      return false;
    }
  for (const std::string& out : outputs) m.value(out)->replace_all_uses_with(built.at(out));
  // Delete the matched ops, users before definitions.
  for (auto it = m.ops_.rbegin(); it != m.ops_.rend(); ++it) {
    bool used = false;
    for (size_t r = 0; r < (*it)->num_results(); ++r) used |= (*it)->result(r)->has_uses();
    if (!used) block->erase(*it);
  }
  return true;
}

size_t apply_greedily(ir::Program& program, const std::vector<Pattern>& patterns, size_t max_rewrites) {
  std::unordered_map<std::string, std::vector<const Pattern*>> by_root;
  for (const Pattern& p : patterns) by_root[p.root_name()].push_back(&p);
  size_t rewrites = 0;
  bool changed = true;
  while (changed && rewrites < max_rewrites) {
    changed = false;
    // A rewrite deletes ops: start the scan again from a fresh list after each one.
    for (ir::Operation* op : program.all_ops()) {
      auto it = by_root.find(op->name());
      if (it == by_root.end()) continue;
      for (const Pattern* p : it->second)
        if (p->apply(op)) {
          changed = true;
          break;
        }
      if (changed) break;
    }
    rewrites += changed;
  }
  return rewrites;
}

}  // namespace oar::pass::drr
