// DRR: declarative rewrite rules, in the spirit of Paddle's DRR. A pattern says what to find
// (a source pattern: a small DAG of ops whose operands and attributes are named placeholders),
// when it applies (constraints over the matched values, types and attributes; compute hooks
// that may derive new attributes, or give up), and what to build instead (a result pattern:
// ops whose operands are placeholders and whose attributes are copied, constant or computed).
//
//   drr::Pattern p("matmul_add");
//   p.source("matmul", {"x", "y"}, {{"transpose_x", drr::bind("tx")}, {"transpose_y", drr::bind("ty")}}, {"mm"})
//    .source("add", {"mm", "bias"}, {}, {"out"})
//    .constraint([](const drr::Match& m) { return m.type("bias").rank() == 1; })
//    .result("fused_matmul_bias", {"x", "y", "bias"},
//            {{"transpose_x", drr::from("tx")}, {"transpose_y", drr::from("ty")},
//             {"activation", drr::constant(ir::Attribute::string("none"))}}, {"out"});
//
// Source operands, one name per registry slot: a placeholder ("x"; a name used twice must be
// the same value), "_" (any value, unnamed) or "none" (an absent optional operand). A
// placeholder that names a result of an earlier source op must be that result. Source ops are
// listed in definition order; the last one is the root, where matching starts, and all of
// them must be reachable from it. All matched ops must sit in the root's block. A result of a
// non-root source op used outside the match must be rebuilt by the result pattern under the
// same name, or the pattern does not apply. Attribute patterns: bind("a") records the value
// under "a" (used twice: must be equal), equals(attr) requires it; unlisted attributes match
// anything.
// Result ops are built before the root, in order; their operands are placeholders, names of
// earlier result ops' results, or "none". Attributes: from("a") (a bound or computed one),
// constant(attr), computed(fn). Omitted attributes take the op's defaults. Every result name
// that the source pattern also defines replaces that value (the types must be equal, else
// nothing is changed); then the matched ops are deleted.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "oar/ir/operation.h"
#include "oar/pass/pass.h"

namespace oar::pass::drr {

struct AttrPattern {
  std::string bind;                    // non-empty: record the attribute under this name
  std::optional<ir::Attribute> equals;  // set: the attribute must equal it
};
inline AttrPattern bind(std::string name) { return {std::move(name), std::nullopt}; }
inline AttrPattern equals(ir::Attribute a) { return {"", std::move(a)}; }

// What a pattern matched: placeholders -> values, bound (and computed) attributes, the ops.
class Match {
 public:
  ir::Value* value(const std::string& name) const;  // throws NotFound naming the placeholder
  bool has_value(const std::string& name) const { return values_.count(name) > 0; }
  const ir::TensorType& type(const std::string& name) const;
  const ir::Attribute& attr(const std::string& name) const;  // throws NotFound
  // A computed attribute (compute hooks), readable by from() in the result pattern.
  void set_attr(const std::string& name, ir::Attribute a) { attrs_[name] = std::move(a); }
  // The IR op matched by source op `i` (definition order).
  ir::Operation* op(size_t i) const { return ops_.at(i); }

 private:
  friend class Pattern;
  std::map<std::string, ir::Value*> values_;
  std::map<std::string, ir::Attribute> attrs_;
  std::vector<ir::Operation*> ops_;
};

using Constraint = std::function<bool(const Match&)>;
// Runs after the constraints pass; may set computed attributes; false: the pattern gives up.
using Compute = std::function<bool(Match&)>;
using AttrFn = std::function<ir::Attribute(const Match&)>;

struct ResultAttr {
  std::string from;
  std::optional<ir::Attribute> constant;
  AttrFn fn;
};
inline ResultAttr from(std::string name) { return {std::move(name), std::nullopt, nullptr}; }
inline ResultAttr constant(ir::Attribute a) { return {"", std::move(a), nullptr}; }
inline ResultAttr computed(AttrFn fn) { return {"", std::nullopt, std::move(fn)}; }

class Pattern {
 public:
  explicit Pattern(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }

  Pattern& source(std::string op, std::vector<std::string> operands, std::map<std::string, AttrPattern> attrs,
                  std::vector<std::string> results);
  Pattern& constraint(Constraint c);
  Pattern& compute(Compute c);
  Pattern& result(std::string op, std::vector<std::string> operands, std::map<std::string, ResultAttr> attrs,
                  std::vector<std::string> results);

  // The op name the root must have.
  const std::string& root_name() const;
  // Matches the source pattern with `root` as its root (no constraints).
  bool match(ir::Operation* root, Match& m) const;
  // Matches, checks the constraints, runs the compute hooks, builds the result and replaces;
  // true when the program changed.
  bool apply(ir::Operation* root) const;

 private:
  struct SourceOp {
    std::string op;
    std::vector<std::string> operands;
    std::map<std::string, AttrPattern> attrs;
    std::vector<std::string> results;
  };
  struct ResultOp {
    std::string op;
    std::vector<std::string> operands;
    std::map<std::string, ResultAttr> attrs;
    std::vector<std::string> results;
  };
  // Source op index defining placeholder `name` and the result index, or {-1, 0}.
  std::pair<int, size_t> source_def(const std::string& name) const;
  bool match_op(size_t i, ir::Operation* op, Match& m) const;

  std::string name_;
  std::vector<SourceOp> source_;
  std::vector<Constraint> constraints_;
  std::vector<Compute> computes_;
  std::vector<ResultOp> result_;
};

// Applies the patterns anywhere in the program (regions included) until none applies (or
// `max_rewrites` were made). Returns the number of rewrites.
size_t apply_greedily(ir::Program& program, const std::vector<Pattern>& patterns, size_t max_rewrites = 100000);

// A pass that applies a set of patterns greedily.
class PatternRewritePass : public Pass {
 public:
  PatternRewritePass(std::string name, std::vector<Pattern> patterns)
      : name_(std::move(name)), patterns_(std::move(patterns)) {}
  std::string name() const override { return name_; }
  bool run(ir::Program& program) override { return apply_greedily(program, patterns_) > 0; }
  size_t num_patterns() const { return patterns_.size(); }

 private:
  std::string name_;
  std::vector<Pattern> patterns_;
};

}  // namespace oar::pass::drr
