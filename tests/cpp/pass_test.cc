// GoogleTest for oar/pass: each pass runs on a small program (written in the IR's text form or
// built with the Builder) and the rewritten program is compared with the expected text; the
// verifier must accept every result. Folded parameters and fused kernels are also checked
// numerically against the eager ops they replace.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <iostream>
#include <sstream>
#include <string>

#include "oar/ir/builder.h"
#include "oar/ir/parser.h"
#include "oar/ir/printer.h"
#include "oar/ir/verifier.h"
#include "oar/ops/generated/api.h"
#include "oar/pass/algebraic_simplification.h"
#include "oar/pass/blocked_conv.h"
#include "oar/pass/buffer_plan.h"
#include "oar/pass/common_subexpression_elimination.h"
#include "oar/pass/constant_folding.h"
#include "oar/pass/dead_code_elimination.h"
#include "oar/pass/drr.h"
#include "oar/pass/elementwise_fusion.h"
#include "oar/pass/fusion_passes.h"
#include "oar/pass/fusion_patterns.h"
#include "oar/pass/pass_manager.h"
#include "oar/pass/program_outputs.h"
#include "oar/runtime/executor.h"

using namespace oar;
using namespace oar::ir;
using namespace oar::pass;

namespace {

// Parses `text`, runs `p` (then DCE when asked, to drop what the rewrite left unused),
// verifies and returns the printed result.
std::string run_on(Pass& p, const std::string& text, bool then_dce = false, bool* changed = nullptr) {
  std::unique_ptr<Program> prog = parse(text);
  verify(*prog);
  const bool c = p.run(*prog);
  if (changed) *changed = c;
  if (then_dce) DeadCodeElimination().run(*prog);
  verify(*prog);
  return print(*prog);
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The body of a program's text (between "program {\n" and "}\n"), for short expectations.
std::string body(const std::string& printed) {
  const size_t a = printed.find('\n') + 1;
  return printed.substr(a, printed.rfind('}') - a);
}

std::string program(const std::string& body_text) { return "program {\n" + body_text + "}\n"; }

double max_abs_diff(const Tensor& a, const Tensor& b) { return max(abs(subtract(a, b))).item<double>(); }

const char* kX = "  %0 = data() {dtype = float32, name = \"x\", shape = ints[2, 3]} : float32[2, 3]\n";

}  // namespace

TEST(PassDce, RemovesUnusedPureAndRandomOpsKeepsInterfaceAndSideEffects) {
  DeadCodeElimination dce;
  bool changed = false;
  const std::string out = run_on(dce, program(std::string(kX) +
      "  %1 = parameter() {dtype = float32, name = \"w\", shape = ints[3]} : float32[3]\n"
      "  %2 = relu(%0) : float32[2, 3]\n"
      "  %3 = exp(%2) : float32[2, 3]\n"
      "  %4 = uniform() {dtype = none, max = 1.0, min = -1.0, seed = 0, shape = ints[2]} : float32[2]\n"
      "  %5 = data() {dtype = float32, name = \"m\", shape = ints[3]} : float32[3]\n"
      "  %6, %7, %8 = batch_norm_base(%0, %5, %5, none, none) {channel_axis = 1, epsilon = 1e-05, momentum = 0.9, "
      "update_running = true, use_batch_stats = true} : float32[2, 3], float32[3], float32[3]\n"
      "  %9, %10, %11 = batch_norm_base(%0, %5, %5, none, none) {channel_axis = 1, epsilon = 1e-05, momentum = 0.9, "
      "update_running = false, use_batch_stats = false} : float32[2, 3], float32[3], float32[3]\n"),
      false, &changed);
  EXPECT_TRUE(changed);
  // The chain relu -> exp goes in one run; the random draw goes; data, parameter and the
  // batch_norm that updates its running statistics stay.
  EXPECT_EQ(body(out), std::string(kX) +
      "  %1 = parameter() {dtype = float32, name = \"w\", shape = ints[3]} : float32[3]\n"
      "  %2 = data() {dtype = float32, name = \"m\", shape = ints[3]} : float32[3]\n"
      "  %3, %4, %5 = batch_norm_base(%0, %2, %2, none, none) {channel_axis = 1, epsilon = 1e-05, momentum = 0.9, "
      "update_running = true, use_batch_stats = true} : float32[2, 3], float32[3], float32[3]\n");
  // Nothing left to remove: unchanged.
  EXPECT_EQ(run_on(dce, out, false, &changed), out);
  EXPECT_FALSE(changed);
}

TEST(PassDce, WorksInsideRegionsAndRemovesDeadControlFlow) {
  DeadCodeElimination dce;
  const std::string cond_prog = program(std::string(kX) +
      "  %1 = data() {dtype = bool, name = \"flag\", shape = ints[]} : bool[]\n"
      "  %2 = cond(%1) region {\n"
      "    %3 = exp(%0) : float32[2, 3]\n"
      "    %4 = relu(%0) : float32[2, 3]\n"
      "    yield([%4])\n"
      "  } region {\n"
      "    yield([%0])\n"
      "  } : float32[2, 3]\n"
      "  %5 = tanh(%2) : float32[2, 3]\n");
  // tanh(%2) is itself unused, so it goes, then the whole (pure) cond goes too.
  EXPECT_EQ(body(run_on(dce, cond_prog)), std::string(kX) +
      "  %1 = data() {dtype = bool, name = \"flag\", shape = ints[]} : bool[]\n");
  // With the cond's result fetched it stays, minus the dead exp inside.
  const std::string kept = program(std::string(kX) +
      "  %1 = data() {dtype = bool, name = \"flag\", shape = ints[]} : bool[]\n"
      "  %2 = cond(%1) region {\n"
      "    %3 = exp(%0) : float32[2, 3]\n"
      "    %4 = relu(%0) : float32[2, 3]\n"
      "    yield([%4])\n"
      "  } region {\n"
      "    yield([%0])\n"
      "  } : float32[2, 3]\n"
      "  pass_outputs([%2])\n");
  EXPECT_EQ(body(run_on(dce, kept)), std::string(kX) +
      "  %1 = data() {dtype = bool, name = \"flag\", shape = ints[]} : bool[]\n"
      "  %2 = cond(%1) region {\n"
      "    %3 = relu(%0) : float32[2, 3]\n"
      "    yield([%3])\n"
      "  } region {\n"
      "    yield([%0])\n"
      "  } : float32[2, 3]\n"
      "  pass_outputs([%2])\n");
}

TEST(PassCse, MergesEqualPureOpsButNotRandomOrDifferentAttributes) {
  CommonSubexpressionElimination cse;
  const std::string out = run_on(cse, program(std::string(kX) +
      "  %1 = exp(%0) : float32[2, 3]\n"
      "  %2 = exp(%0) : float32[2, 3]\n"
      "  %3 = add(%1, %2) : float32[2, 3]\n"
      "  %4 = scale(%3) {bias = scalar(0.0), bias_after_scale = true, scale = scalar(2.0)} : float32[2, 3]\n"
      "  %5 = scale(%3) {bias = scalar(0.0), bias_after_scale = true, scale = scalar(3.0)} : float32[2, 3]\n"
      "  %6 = scale(%3) {bias = scalar(0.0), bias_after_scale = true, scale = scalar(2.0)} : float32[2, 3]\n"
      "  %7 = uniform() {dtype = none, max = 1.0, min = -1.0, seed = 0, shape = ints[2, 3]} : float32[2, 3]\n"
      "  %8 = uniform() {dtype = none, max = 1.0, min = -1.0, seed = 0, shape = ints[2, 3]} : float32[2, 3]\n"
      "  pass_outputs([%4, %5, %6, %7, %8])\n"),
      /*then_dce=*/true);
  EXPECT_EQ(body(out), std::string(kX) +
      "  %1 = exp(%0) : float32[2, 3]\n"
      "  %2 = add(%1, %1) : float32[2, 3]\n"
      "  %3 = scale(%2) {bias = scalar(0.0), bias_after_scale = true, scale = scalar(2.0)} : float32[2, 3]\n"
      "  %4 = scale(%2) {bias = scalar(0.0), bias_after_scale = true, scale = scalar(3.0)} : float32[2, 3]\n"
      "  %5 = uniform() {dtype = none, max = 1.0, min = -1.0, seed = 0, shape = ints[2, 3]} : float32[2, 3]\n"
      "  %6 = uniform() {dtype = none, max = 1.0, min = -1.0, seed = 0, shape = ints[2, 3]} : float32[2, 3]\n"
      "  pass_outputs([%3, %4, %3, %5, %6])\n");
}

TEST(PassCse, IsScopedByRegions) {
  CommonSubexpressionElimination cse;
  // Inside the then region, exp(%0) repeats the outer one: reused. The tanh defined inside the
  // region must not replace the tanh after the cond (it is not visible there).
  const std::string out = run_on(cse, program(std::string(kX) +
      "  %1 = data() {dtype = bool, name = \"flag\", shape = ints[]} : bool[]\n"
      "  %2 = exp(%0) : float32[2, 3]\n"
      "  %3 = cond(%1) region {\n"
      "    %4 = exp(%0) : float32[2, 3]\n"
      "    %5 = tanh(%0) : float32[2, 3]\n"
      "    %6 = add(%4, %5) : float32[2, 3]\n"
      "    yield([%6])\n"
      "  } region {\n"
      "    %7 = tanh(%0) : float32[2, 3]\n"
      "    yield([%7])\n"
      "  } : float32[2, 3]\n"
      "  %8 = tanh(%0) : float32[2, 3]\n"
      "  pass_outputs([%2, %3, %8])\n"));
  EXPECT_EQ(body(out), std::string(kX) +
      "  %1 = data() {dtype = bool, name = \"flag\", shape = ints[]} : bool[]\n"
      "  %2 = exp(%0) : float32[2, 3]\n"
      "  %3 = cond(%1) region {\n"
      "    %4 = tanh(%0) : float32[2, 3]\n"
      "    %5 = add(%2, %4) : float32[2, 3]\n"
      "    yield([%5])\n"
      "  } region {\n"
      "    %6 = tanh(%0) : float32[2, 3]\n"
      "    yield([%6])\n"
      "  } : float32[2, 3]\n"
      "  %7 = tanh(%0) : float32[2, 3]\n"
      "  pass_outputs([%2, %3, %7])\n");
}

TEST(PassAlgebraic, RemovesIdentitiesOnlyWhenTypesProveThem) {
  AlgebraicSimplification simp;
  const std::string out = run_on(simp, program(std::string(kX) +
      "  %1 = full() {dtype = none, fill_value = scalar(1.0), shape = ints[2, 3]} : float32[2, 3]\n"
      "  %2 = multiply(%0, %1) : float32[2, 3]\n"
      "  %3 = zeros() {dtype = none, shape = ints[2, 3]} : float32[2, 3]\n"
      "  %4 = add(%3, %2) : float32[2, 3]\n"
      "  %5 = zeros() {dtype = none, shape = ints[4, 2, 3]} : float32[4, 2, 3]\n"
      "  %6 = add(%4, %5) : float32[4, 2, 3]\n"
      "  %7 = cast(%4) {dtype = float32} : float32[2, 3]\n"
      "  %8 = cast(%4) {dtype = float64} : float64[2, 3]\n"
      "  %9 = scale(%7) {bias = scalar(0.0), bias_after_scale = true, scale = scalar(1.0)} : float32[2, 3]\n"
      "  %10 = transpose(%9) {perm = ints[1, 0]} : float32[3, 2]\n"
      "  %11 = transpose(%10) {perm = ints[1, 0]} : float32[2, 3]\n"
      "  %12 = reshape(%11) {shape = ints[3, 2]} : float32[3, 2]\n"
      "  %13 = reshape(%12) {shape = ints[6]} : float32[6]\n"
      "  %14 = reshape(%0) {shape = ints[2, 3]} : float32[2, 3]\n"
      "  %15 = divide(%14, %1) : float32[2, 3]\n"
      "  pass_outputs([%15, %11, %6, %8, %13])\n"),
      /*then_dce=*/true);
  // Gone: x * 1, 0 + x, the cast to float32, scale(1, 0), the double transpose, reshape of
  // reshape (one reshape of x), reshape to x's own shape, / 1. Kept: the broadcasting add (its
  // type differs from x's) and the real cast.
  EXPECT_EQ(body(out), std::string(kX) +
      "  %1 = zeros() {dtype = none, shape = ints[4, 2, 3]} : float32[4, 2, 3]\n"
      "  %2 = add(%0, %1) : float32[4, 2, 3]\n"
      "  %3 = cast(%0) {dtype = float64} : float64[2, 3]\n"
      "  %4 = reshape(%0) {shape = ints[6]} : float32[6]\n"
      "  pass_outputs([%0, %0, %2, %3, %4])\n");
}

TEST(PassAlgebraic, InferenceDropoutPassesItsInputThrough) {
  AlgebraicSimplification simp;
  const std::string out = run_on(simp, program(std::string(kX) +
      "  %1 = dropout(%0) {axis = ints[], mode = \"upscale_in_train\", p = 0.1, training = false} : float32[2, 3]\n"
      "  %2 = dropout(%1) {axis = ints[], mode = \"upscale_in_train\", p = 0.0, training = true} : float32[2, 3]\n"
      "  %3 = dropout(%2) {axis = ints[], mode = \"downscale_in_infer\", p = 0.1, training = false} : float32[2, 3]\n"
      "  %4 = dropout(%3) {axis = ints[], mode = \"upscale_in_train\", p = 0.1, training = true} : float32[2, 3]\n"
      "  pass_outputs([%4])\n"),
      /*then_dce=*/true);
  // Gone: inference dropout (upscale_in_train) and p = 0; kept: downscale_in_infer at inference
  // (it scales) and training dropout.
  EXPECT_EQ(body(out), std::string(kX) +
      "  %1 = dropout(%0) {axis = ints[], mode = \"downscale_in_infer\", p = 0.1, training = false} : float32[2, 3]\n"
      "  %2 = dropout(%1) {axis = ints[], mode = \"upscale_in_train\", p = 0.1, training = true} : float32[2, 3]\n"
      "  pass_outputs([%2])\n");
}

TEST(PassAlgebraic, ComposesTransposes) {
  AlgebraicSimplification simp;
  const std::string out = run_on(simp, program(
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[2, 3, 4]} : float32[2, 3, 4]\n"
      "  %1 = transpose(%0) {perm = ints[1, 2, 0]} : float32[3, 4, 2]\n"
      "  %2 = transpose(%1) {perm = ints[0, 2, 1]} : float32[3, 2, 4]\n"
      "  pass_outputs([%2])\n"),
      true);
  EXPECT_EQ(body(out),
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[2, 3, 4]} : float32[2, 3, 4]\n"
      "  %1 = transpose(%0) {perm = ints[1, 0, 2]} : float32[3, 2, 4]\n"
      "  pass_outputs([%1])\n");
}

TEST(PassManager, TimesDumpsAndNamesThePassThatBreaksTheProgram) {
  PassManager pm;
  pm.add<AlgebraicSimplification>().add<DeadCodeElimination>();
  std::ostringstream dump;
  pm.set_dump(false, {"dce"});
  pm.set_dump_stream(&dump);
  pm.set_verify(true);
  std::unique_ptr<Program> p = parse(program(std::string(kX) +
      "  %1 = ones() {dtype = none, shape = ints[2, 3]} : float32[2, 3]\n"
      "  %2 = multiply(%0, %1) : float32[2, 3]\n"
      "  %3 = relu(%2) : float32[2, 3]\n"));
  std::vector<Value*> outputs = {p->block().ops().back()->result(0)};
  EXPECT_TRUE(pm.run(*p, &outputs));
  EXPECT_EQ(body(print(*p)), std::string(kX) + "  %1 = relu(%0) : float32[2, 3]\n");
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0]->defining_op()->name(), "relu");
  // The dump shows the program around dce only (with the pinned outputs), not around the
  // simplification.
  EXPECT_TRUE(has(dump.str(), "// IR before pass 'dce'\nprogram {\n")) << dump.str();
  EXPECT_TRUE(has(dump.str(), "// IR after pass 'dce'\n")) << dump.str();
  EXPECT_TRUE(has(dump.str(), "pass_outputs([%")) << dump.str();
  EXPECT_FALSE(has(dump.str(), "algebraic_simplification")) << dump.str();
  ASSERT_EQ(pm.timings().size(), 2u);
  EXPECT_EQ(pm.timings()[0].pass, "algebraic_simplification");
  EXPECT_TRUE(pm.timings()[0].changed);
  EXPECT_GE(pm.timings()[1].seconds, 0.0);
  const std::string report = pm.timing_report();
  EXPECT_TRUE(has(report, "algebraic_simplification")) << report;
  EXPECT_TRUE(has(report, "total")) << report;

  // A pass that leaves a use before its definition: the verifier's error names it.
  struct Breaker : Pass {
    std::string name() const override { return "breaker"; }
    bool run(Program& prog) override {
      Block& b = prog.block();
      Value* last = b.ops().back()->result(0);
      b.insert(b.begin(), Operation::create("relu", {last}, {}, {}, {last->type()}));
      return true;
    }
  };
  PassManager bad;
  bad.add<Breaker>();
  bad.set_verify(true);
  std::unique_ptr<Program> q = parse(program(std::string(kX) + "  %1 = relu(%0) : float32[2, 3]\n"));
  try {
    bad.run(*q);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_TRUE(has(e.what(), "pass 'breaker' produced an invalid program")) << e.what();
  }
}

TEST(PassManager, DumpListFromEnvironment) {
  setenv("OAR_IR_DUMP", "cse,dce", 1);
  PassManager pm;
  unsetenv("OAR_IR_DUMP");
  pm.add<CommonSubexpressionElimination>().add<AlgebraicSimplification>();
  std::ostringstream dump;
  pm.set_dump_stream(&dump);
  std::unique_ptr<Program> p = parse(program(std::string(kX)));
  pm.run(*p);
  EXPECT_TRUE(has(dump.str(), "// IR before pass 'cse'")) << dump.str();
  EXPECT_TRUE(has(dump.str(), "// IR after (unchanged) pass 'cse'")) << dump.str();
  EXPECT_FALSE(has(dump.str(), "algebraic")) << dump.str();
}

TEST(PassDrr, MatchesBindsAttributesAndChecksConstraints) {
  // A pattern written in the test: exp(log(x)) -> x only for positive constants is not
  // expressible; instead scale(scale(x, a), b) -> scale(x, a * b) (bias 0), with a constraint.
  drr::Pattern p("scale_scale");
  p.source("scale", {"x"}, {{"scale", drr::bind("a")}, {"bias", drr::equals(Attribute::scalar(0.0))}}, {"s1"})
      .source("scale", {"s1"}, {{"scale", drr::bind("b")}, {"bias", drr::equals(Attribute::scalar(0.0))}}, {"out"})
      .constraint([](const drr::Match& m) { return m.type("x").dtype == DType::Float32; })
      .result("scale", {"x"},
              {{"scale", drr::computed([](const drr::Match& m) {
                  return Attribute::scalar(m.attr("a").as_scalar().to<double>() * m.attr("b").as_scalar().to<double>());
                })}},
              {"out"});
  drr::PatternRewritePass pass("scale_scale", {p});
  const std::string src = program(std::string(kX) +
      "  %1 = scale(%0) {bias = scalar(0.0), bias_after_scale = true, scale = scalar(2.0)} : float32[2, 3]\n"
      "  %2 = scale(%1) {bias = scalar(0.0), bias_after_scale = true, scale = scalar(3.0)} : float32[2, 3]\n"
      "  %3 = scale(%2) {bias = scalar(0.0), bias_after_scale = true, scale = scalar(0.5)} : float32[2, 3]\n"
      "  pass_outputs([%3])\n");
  // Applied to a fixpoint: three scales become one.
  EXPECT_EQ(body(run_on(pass, src)), std::string(kX) +
      "  %1 = scale(%0) {bias = scalar(0.0), bias_after_scale = true, scale = scalar(3.0)} : float32[2, 3]\n"
      "  pass_outputs([%1])\n");
  // An intermediate used outside the match is not rebuilt by the result: no rewrite.
  const std::string shared = program(std::string(kX) +
      "  %1 = scale(%0) {bias = scalar(0.0), bias_after_scale = true, scale = scalar(2.0)} : float32[2, 3]\n"
      "  %2 = scale(%1) {bias = scalar(0.0), bias_after_scale = true, scale = scalar(3.0)} : float32[2, 3]\n"
      "  pass_outputs([%1, %2])\n");
  bool changed = true;
  EXPECT_EQ(run_on(pass, shared, false, &changed), shared);
  EXPECT_FALSE(changed);
  // A bias that is not 0 does not match; float64 fails the constraint.
  const std::string biased = program(std::string(kX) +
      "  %1 = scale(%0) {bias = scalar(1.0), bias_after_scale = true, scale = scalar(2.0)} : float32[2, 3]\n"
      "  %2 = scale(%1) {bias = scalar(0.0), bias_after_scale = true, scale = scalar(3.0)} : float32[2, 3]\n"
      "  pass_outputs([%2])\n");
  EXPECT_EQ(run_on(pass, biased), biased);
  const std::string f64 = program(
      "  %0 = data() {dtype = float64, name = \"x\", shape = ints[2]} : float64[2]\n"
      "  %1 = scale(%0) {bias = scalar(0.0), bias_after_scale = true, scale = scalar(2.0)} : float64[2]\n"
      "  %2 = scale(%1) {bias = scalar(0.0), bias_after_scale = true, scale = scalar(3.0)} : float64[2]\n"
      "  pass_outputs([%2])\n");
  EXPECT_EQ(run_on(pass, f64), f64);
}

TEST(PassFusion, MatmulBiasActivation) {
  std::unique_ptr<Pass> fusion = make_fusion_pass();
  const std::string out = run_on(*fusion, program(
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[-1, 3]} : float32[-1, 3]\n"
      "  %1 = parameter() {dtype = float32, name = \"w\", shape = ints[3, 4]} : float32[3, 4]\n"
      "  %2 = parameter() {dtype = float32, name = \"b\", shape = ints[4]} : float32[4]\n"
      "  %3 = matmul(%0, %1) {transpose_x = false, transpose_y = false} : float32[-1, 4]\n"
      "  %4 = add(%3, %2) : float32[-1, 4]\n"
      "  %5 = gelu(%4) {approximate = true} : float32[-1, 4]\n"
      "  %6 = matmul(%5, %1) {transpose_x = false, transpose_y = true} : float32[-1, 3]\n"
      "  %7 = parameter() {dtype = float32, name = \"c\", shape = ints[3]} : float32[3]\n"
      "  %8 = add(%7, %6) : float32[-1, 3]\n"
      "  pass_outputs([%8])\n"));
  EXPECT_EQ(body(out),
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[-1, 3]} : float32[-1, 3]\n"
      "  %1 = parameter() {dtype = float32, name = \"w\", shape = ints[3, 4]} : float32[3, 4]\n"
      "  %2 = parameter() {dtype = float32, name = \"b\", shape = ints[4]} : float32[4]\n"
      "  %3 = fused_matmul_bias(%0, %1, %2) {activation = \"gelu_tanh\", transpose_x = false, transpose_y = false} "
      ": float32[-1, 4]\n"
      "  %4 = parameter() {dtype = float32, name = \"c\", shape = ints[3]} : float32[3]\n"
      "  %5 = fused_matmul_bias(%3, %1, %4) {activation = \"none\", transpose_x = false, transpose_y = true} "
      ": float32[-1, 3]\n"
      "  pass_outputs([%5])\n");
  // linear (what nn.Linear traces to) with its bias, then an activation.
  const std::string lin = run_on(*fusion, program(
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[-1, 3]} : float32[-1, 3]\n"
      "  %1 = parameter() {dtype = float32, name = \"w\", shape = ints[3, 4]} : float32[3, 4]\n"
      "  %2 = parameter() {dtype = float32, name = \"b\", shape = ints[4]} : float32[4]\n"
      "  %3 = linear(%0, %1, %2) : float32[-1, 4]\n"
      "  %4 = silu(%3) : float32[-1, 4]\n"
      "  pass_outputs([%4])\n"));
  EXPECT_TRUE(has(lin, "  %3 = fused_matmul_bias(%0, %1, %2) {activation = \"silu\", transpose_x = false, "
                       "transpose_y = false} : float32[-1, 4]\n  pass_outputs([%3])\n")) << lin;
  // A bias that broadcasts the matmul's result to a bigger shape is not a bias.
  const std::string wide = program(
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[2, 3]} : float32[2, 3]\n"
      "  %1 = parameter() {dtype = float32, name = \"w\", shape = ints[3, 4]} : float32[3, 4]\n"
      "  %2 = parameter() {dtype = float32, name = \"b\", shape = ints[5, 2, 4]} : float32[5, 2, 4]\n"
      "  %3 = matmul(%0, %1) {transpose_x = false, transpose_y = false} : float32[2, 4]\n"
      "  %4 = add(%3, %2) : float32[5, 2, 4]\n"
      "  pass_outputs([%4])\n");
  EXPECT_EQ(run_on(*fusion, wide), wide);
}

TEST(PassFusion, ConvBiasActivationSoftmaxAndLayerNorm) {
  std::unique_ptr<Pass> fusion = make_fusion_pass();
  const std::string conv = run_on(*fusion, program(
      "  %0 = data() {dtype = float32, name = \"img\", shape = ints[-1, 3, 8, 8]} : float32[-1, 3, 8, 8]\n"
      "  %1 = parameter() {dtype = float32, name = \"k\", shape = ints[4, 3, 3, 3]} : float32[4, 3, 3, 3]\n"
      "  %2 = parameter() {dtype = float32, name = \"kb\", shape = ints[4]} : float32[4]\n"
      "  %3 = conv2d(%0, %1, none) {data_format = \"NCHW\", dilation = ints[1], groups = 1, padding = ints[1], "
      "padding_algorithm = \"EXPLICIT\", stride = ints[1]} : float32[-1, 4, 8, 8]\n"
      "  %4 = reshape(%2) {shape = ints[1, 4, 1, 1]} : float32[1, 4, 1, 1]\n"
      "  %5 = add(%3, %4) : float32[-1, 4, 8, 8]\n"
      "  %6 = relu(%5) : float32[-1, 4, 8, 8]\n"
      "  pass_outputs([%6])\n"), true);
  EXPECT_EQ(body(conv),
      "  %0 = data() {dtype = float32, name = \"img\", shape = ints[-1, 3, 8, 8]} : float32[-1, 3, 8, 8]\n"
      "  %1 = parameter() {dtype = float32, name = \"k\", shape = ints[4, 3, 3, 3]} : float32[4, 3, 3, 3]\n"
      "  %2 = parameter() {dtype = float32, name = \"kb\", shape = ints[4]} : float32[4]\n"
      "  %3 = fused_conv2d_bias_act(%0, %1, %2) {activation = \"relu\", data_format = \"NCHW\", dilation = ints[1], "
      "groups = 1, padding = ints[1], padding_algorithm = \"EXPLICIT\", stride = ints[1]} : float32[-1, 4, 8, 8]\n"
      "  pass_outputs([%3])\n");

  const std::string softmax = run_on(*fusion, program(
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[-1, 5]} : float32[-1, 5]\n"
      "  %1 = max(%0) {axis = ints[-1], keepdim = true} : float32[-1, 1]\n"
      "  %2 = subtract(%0, %1) : float32[-1, 5]\n"
      "  %3 = exp(%2) : float32[-1, 5]\n"
      "  %4 = sum(%3) {axis = ints[-1], dtype = none, keepdim = true} : float32[-1, 1]\n"
      "  %5 = divide(%3, %4) : float32[-1, 5]\n"
      "  %6 = exp(%0) : float32[-1, 5]\n"
      "  %7 = sum(%6) {axis = ints[0], dtype = none, keepdim = true} : float32[1, 5]\n"
      "  %8 = divide(%6, %7) : float32[-1, 5]\n"
      "  %9 = exp(%0) : float32[-1, 5]\n"
      "  %10 = sum(%9) {axis = ints[0], dtype = none, keepdim = false} : float32[5]\n"
      "  %11 = divide(%9, %10) : float32[-1, 5]\n"
      "  %12 = exp(%0) : float32[-1, 5]\n"
      "  %13 = sum(%12) {axis = ints[1], dtype = none, keepdim = true} : float32[-1, 1]\n"
      "  %14 = divide(%12, %13) : float32[-1, 5]\n"
      "  %15 = exp(%14) : float32[-1, 5]\n"
      "  pass_outputs([%5, %8, %11, %12, %15])\n"), true);
  // Not softmax: a sum without keepdim; an exp that is also read elsewhere.
  EXPECT_EQ(body(softmax),
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[-1, 5]} : float32[-1, 5]\n"
      "  %1 = softmax(%0) {axis = -1, dtype = none} : float32[-1, 5]\n"
      "  %2 = softmax(%0) {axis = 0, dtype = none} : float32[-1, 5]\n"
      "  %3 = exp(%0) : float32[-1, 5]\n"
      "  %4 = sum(%3) {axis = ints[0], dtype = none, keepdim = false} : float32[5]\n"
      "  %5 = divide(%3, %4) : float32[-1, 5]\n"
      "  %6 = exp(%0) : float32[-1, 5]\n"
      "  %7 = sum(%6) {axis = ints[1], dtype = none, keepdim = true} : float32[-1, 1]\n"
      "  %8 = divide(%6, %7) : float32[-1, 5]\n"
      "  %9 = exp(%8) : float32[-1, 5]\n"
      "  pass_outputs([%1, %2, %5, %6, %9])\n");

  const std::string ln = run_on(*fusion, program(
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[-1, 7, 16]} : float32[-1, 7, 16]\n"
      "  %1 = parameter() {dtype = float32, name = \"g\", shape = ints[16]} : float32[16]\n"
      "  %2 = parameter() {dtype = float32, name = \"b\", shape = ints[16]} : float32[16]\n"
      "  %3 = mean(%0) {axis = ints[-1], keepdim = true} : float32[-1, 7, 1]\n"
      "  %4 = subtract(%0, %3) : float32[-1, 7, 16]\n"
      "  %5 = square(%4) : float32[-1, 7, 16]\n"
      "  %6 = mean(%5) {axis = ints[-1], keepdim = true} : float32[-1, 7, 1]\n"
      "  %7 = full() {dtype = none, fill_value = scalar(1e-06), shape = ints[1]} : float32[1]\n"
      "  %8 = add(%6, %7) : float32[-1, 7, 1]\n"
      "  %9 = sqrt(%8) : float32[-1, 7, 1]\n"
      "  %10 = divide(%4, %9) : float32[-1, 7, 16]\n"
      "  %11 = multiply(%10, %1) : float32[-1, 7, 16]\n"
      "  %12 = add(%11, %2) : float32[-1, 7, 16]\n"
      "  pass_outputs([%12])\n"), true);
  EXPECT_EQ(body(ln),
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[-1, 7, 16]} : float32[-1, 7, 16]\n"
      "  %1 = parameter() {dtype = float32, name = \"g\", shape = ints[16]} : float32[16]\n"
      "  %2 = parameter() {dtype = float32, name = \"b\", shape = ints[16]} : float32[16]\n"
      "  %3 = layer_norm(%0, %1, %2) {epsilon = 1e-06, normalized_shape = ints[16]} : float32[-1, 7, 16]\n"
      "  pass_outputs([%3])\n");
}

TEST(PassFusion, ConvBatchNormFoldMatchesTheUnfoldedOpsNumerically) {
  for (bool conv_bias : {false, true}) {
    ParameterStore params;
    params["k"] = randn({4, 3, 3, 3}, DType::Float64);
    params["kb"] = randn({4}, DType::Float64);
    params["mean"] = randn({4}, DType::Float64);
    params["var"] = add(abs(randn({4}, DType::Float64)), full({4}, 0.5, DType::Float64));
    params["gamma"] = randn({4}, DType::Float64);
    params["beta"] = randn({4}, DType::Float64);
    std::unique_ptr<Pass> fold = make_conv_batch_norm_fold_pass(params);
    const std::string src = program(
        "  %0 = data() {dtype = float64, name = \"img\", shape = ints[2, 3, 6, 6]} : float64[2, 3, 6, 6]\n" +
        std::string("  %1 = parameter() {dtype = float64, name = \"k\", shape = ints[4, 3, 3, 3]} : float64[4, 3, 3, 3]\n"
                    "  %2 = parameter() {dtype = float64, name = \"kb\", shape = ints[4]} : float64[4]\n"
                    "  %3 = parameter() {dtype = float64, name = \"mean\", shape = ints[4]} : float64[4]\n"
                    "  %4 = parameter() {dtype = float64, name = \"var\", shape = ints[4]} : float64[4]\n"
                    "  %5 = parameter() {dtype = float64, name = \"gamma\", shape = ints[4]} : float64[4]\n"
                    "  %6 = parameter() {dtype = float64, name = \"beta\", shape = ints[4]} : float64[4]\n") +
        "  %7 = conv2d(%0, %1, " + (conv_bias ? "%2" : "none") + ") {data_format = \"NCHW\", dilation = ints[1], "
        "groups = 1, padding = ints[1], padding_algorithm = \"EXPLICIT\", stride = ints[1]} : float64[2, 4, 6, 6]\n"
        "  %8, %9, %10 = batch_norm_base(%7, %3, %4, %5, %6) {channel_axis = 1, epsilon = 0.001, momentum = 0.9, "
        "update_running = false, use_batch_stats = false} : float64[2, 4, 6, 6], float64[4], float64[4]\n"
        "  pass_outputs([%8])\n");
    const std::string out = run_on(*fold, src, true);
    // New parameters for the folded weight and bias (the old ones stay: DCE keeps parameters).
    EXPECT_TRUE(has(out, "  %7 = parameter() {dtype = float64, name = \"k_bn_folded\", shape = ints[4, 3, 3, 3]} "
                         ": float64[4, 3, 3, 3]\n"
                         "  %8 = parameter() {dtype = float64, name = \"gamma_bn_folded_bias\", shape = ints[4]} "
                         ": float64[4]\n"
                         "  %9 = conv2d(%0, %7, %8) {data_format = \"NCHW\", dilation = ints[1], groups = 1, "
                         "padding = ints[1], padding_algorithm = \"EXPLICIT\", stride = ints[1]} : float64[2, 4, 6, 6]\n"
                         "  pass_outputs([%9])\n"))
        << out;
    EXPECT_EQ(params.size(), 8u);
    // The folded conv computes what conv + batch_norm computed.
    const Tensor x = randn({2, 3, 6, 6}, DType::Float64);
    const Tensor conv_out = conv2d(x, params["k"], conv_bias ? params["kb"] : Tensor(), 1, 1);
    const Tensor ref = std::get<0>(batch_norm_base(conv_out, params["mean"], params["var"], params["gamma"],
                                                   params["beta"], false, false, 0.9, 0.001, 1));
    const Tensor folded = conv2d(x, params.at("k_bn_folded"), params.at("gamma_bn_folded_bias"), 1, 1);
    EXPECT_LT(max_abs_diff(ref, folded), 1e-10);
  }
}

TEST(PassElementwiseFusion, ChainsBecomeOneLoopAndMatchTheEagerOps) {
  ElementwiseFusion ew;
  const std::string out = run_on(ew, program(
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[-1, 3]} : float32[-1, 3]\n"
      "  %1 = data() {dtype = float32, name = \"y\", shape = ints[-1, 3]} : float32[-1, 3]\n"
      "  %2 = relu(%0) : float32[-1, 3]\n"
      "  %3 = exp(%2) : float32[-1, 3]\n"
      "  %4 = multiply(%3, %1) : float32[-1, 3]\n"
      "  %5 = tanh(%4) : float32[-1, 3]\n"
      "  %6 = sigmoid(%5) : float32[-1, 3]\n"
      "  %7 = add(%5, %6) : float32[-1, 3]\n"
      "  pass_outputs([%4, %7])\n"));
  // %4 is fetched, so the first chain ends there; the second reads it twice (as tanh's input
  // and through tanh).
  EXPECT_EQ(body(out),
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[-1, 3]} : float32[-1, 3]\n"
      "  %1 = data() {dtype = float32, name = \"y\", shape = ints[-1, 3]} : float32[-1, 3]\n"
      "  %2 = fused_elementwise([%0, %1]) {program = ints[0, 0, -1, 1, 2, -1, 102, 3, 1]} : float32[-1, 3]\n"
      "  %3 = fused_elementwise([%2]) {program = ints[2, 0, -1, 3, 1, -1, 100, 1, 2]} : float32[-1, 3]\n"
      "  pass_outputs([%2, %3])\n");
  // Numerically the fused kernel equals the eager chain (float32 and float64, a size that is
  // not a multiple of the block).
  for (DType dt : {DType::Float32, DType::Float64}) {
    const Tensor x = randn({1000, 3}, dt), y = randn({1000, 3}, dt);
    const Tensor a = multiply(exp(relu(x)), y);
    const Tensor t = tanh(a);
    const Tensor ref = add(t, sigmoid(t));
    const Tensor fa = fused_elementwise({x, y}, IntArray{0, 0, -1, 1, 2, -1, 102, 3, 1});
    const Tensor fb = fused_elementwise({fa}, IntArray{2, 0, -1, 3, 1, -1, 100, 1, 2});
    EXPECT_LT(max_abs_diff(a, fa), dt == DType::Float32 ? 1e-5 : 1e-12);
    EXPECT_LT(max_abs_diff(ref, fb), dt == DType::Float32 ? 1e-5 : 1e-12);
  }
  // Broadcasting ops and integer tensors stay as they are.
  const std::string mixed = program(
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[2, 3]} : float32[2, 3]\n"
      "  %1 = data() {dtype = float32, name = \"y\", shape = ints[3]} : float32[3]\n"
      "  %2 = add(%0, %1) : float32[2, 3]\n"
      "  %3 = exp(%2) : float32[2, 3]\n"
      "  %4 = data() {dtype = int64, name = \"i\", shape = ints[3]} : int64[3]\n"
      "  %5 = abs(%4) : int64[3]\n"
      "  %6 = neg(%5) : int64[3]\n"
      "  pass_outputs([%3, %6])\n");
  EXPECT_EQ(run_on(ew, mixed), mixed);
}

TEST(PassBufferPlan, ReusesDeadBuffersAndRunsInPlaceWhenTheOperandDies) {
  std::unique_ptr<Program> p = parse(program(
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[4, 8]} : float32[4, 8]\n"
      "  %1 = exp(%0) : float32[4, 8]\n"                                  // slot 0 (x is external)
      "  %2 = sigmoid(%1) : float32[4, 8]\n"                              // slot 1 (no in-place variant)
      "  %3 = tanh(%2) : float32[4, 8]\n"                                 // in place of %2: slot 1
      "  %4 = reshape(%3) {shape = ints[32]} : float32[32]\n"             // a view of %3: slot 1
      "  %5 = sum(%4) {axis = ints[], dtype = none, keepdim = false} : float32[]\n"  // slot 2
      "  %6 = multiply(%1, %1) : float32[4, 8]\n"                         // in place of %1: slot 0
      "  %7 = sigmoid(%6) : float32[4, 8]\n"                              // reuses slot 1 (%3 died at %5)
      "  %8 = data() {dtype = float32, name = \"n\", shape = ints[-1]} : float32[-1]\n"
      "  %9 = relu(%8) : float32[-1]\n"));                                // unknown size: own slot 3
  verify(*p);
  std::vector<Operation*> ops;
  for (auto& op : p->block().ops()) ops.push_back(op.get());
  auto v = [&](size_t i) { return ops[i]->result(0); };
  const BufferPlan plan = plan_buffers(p->block(), {v(5), v(7), v(9)});
  EXPECT_EQ(plan.slot_of(v(0)), -1);
  EXPECT_EQ(plan.slot_of(v(1)), 0);
  EXPECT_EQ(plan.slot_of(v(2)), 1);
  EXPECT_EQ(plan.slot_of(v(3)), 1);
  EXPECT_EQ(plan.slot_of(v(4)), 1);
  EXPECT_EQ(plan.slot_of(v(5)), 2);
  EXPECT_EQ(plan.slot_of(v(6)), 0);
  EXPECT_EQ(plan.slot_of(v(7)), 1);
  EXPECT_EQ(plan.slot_of(v(9)), 3);
  EXPECT_EQ(plan.last_use.at(v(1)), 6u);
  EXPECT_EQ(plan.last_use.at(v(7)), ops.size());  // fetched: lives to the end
  EXPECT_TRUE(plan.inplace.count(ops[3]));        // tanh over the dying sigmoid
  EXPECT_TRUE(plan.inplace.count(ops[6]));        // multiply over the dying exp
  EXPECT_FALSE(plan.inplace.count(ops[2]));
  EXPECT_EQ(plan.slot_bytes, (std::vector<int64_t>{128, 128, 4, -1}));
  // Without reuse: five 128-byte buffers and one scalar; with reuse: two 128-byte slots and the scalar.
  EXPECT_EQ(plan.bytes_without_reuse, 5 * 128 + 4);
  EXPECT_EQ(plan.bytes_with_reuse, 2 * 128 + 4);
  EXPECT_EQ(plan.unknown_size_buffers, 1u);
}

TEST(PassPipeline, InferencePassesFuseADeepMlpAndReportTimings) {
  // x -> 64 x (matmul + bias + relu), each layer's weight read through a redundant
  // transpose pair and a duplicated bias add, then a softmax chain.
  const int layers = 64;
  Program p;
  Builder b(p);
  Value* h = b.data("x", TensorType(DType::Float32, {-1, 16}));
  for (int i = 0; i < layers; ++i) {
    Value* w = b.parameter("w" + std::to_string(i), TensorType(DType::Float32, {16, 16}));
    Value* bias = b.parameter("b" + std::to_string(i), TensorType(DType::Float32, {16}));
    Value* wt = b.create1("transpose", {{w}}, {{"perm", Attribute::int_array({1, 0})}});
    Value* wtt = b.create1("transpose", {{wt}}, {{"perm", Attribute::int_array({1, 0})}});
    Value* mm = b.create1("matmul", {{h}, {wtt}});
    Value* mm2 = b.create1("matmul", {{h}, {wtt}});  // CSE merges it with mm
    Value* a = b.create1("add", {{mm}, {bias}});
    b.create1("add", {{mm2}, {bias}});               // dead after CSE
    h = b.create1("relu", {{a}});
  }
  Value* mx = b.create1("max", {{h}}, {{"axis", Attribute::int_array({-1})}, {"keepdim", Attribute::boolean(true)}});
  Value* e = b.create1("exp", {{b.create1("subtract", {{h}, {mx}})}});
  Value* s = b.create1("sum", {{e}}, {{"axis", Attribute::int_array({-1})}, {"keepdim", Attribute::boolean(true)}});
  std::vector<Value*> outputs = {b.create1("divide", {{e}, {s}})};
  verify(p);
  EXPECT_EQ(p.block().size(), 1u + layers * 9 + 5);

  PassManager pm;
  add_inference_passes(pm);
  pm.set_verify(true);
  EXPECT_TRUE(pm.run(p, &outputs));
  // What is left: x, the parameters, one fused op per layer and the softmax.
  EXPECT_EQ(p.block().size(), 1u + layers * 3 + 1);
  size_t fused = 0;
  for (auto& op : p.block().ops()) {
    if (op->name() == "fused_matmul_bias") {
      ++fused;
      EXPECT_EQ(op->attr("activation")->as_string(), "relu");
    }
  }
  EXPECT_EQ(fused, static_cast<size_t>(layers));
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0]->defining_op()->name(), "softmax");
  EXPECT_EQ(outputs[0]->type(), TensorType(DType::Float32, {-1, 16}));
  std::cout << "[pass] " << layers << "-layer MLP, " << (1 + layers * 9 + 5) << " ops -> " << p.block().size()
            << " ops\n" << pm.timing_report();
}

TEST(PassFusion, AppliesInsideRegions) {
  std::unique_ptr<Pass> fusion = make_fusion_pass();
  const std::string out = run_on(*fusion, program(
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[2, 5]} : float32[2, 5]\n"
      "  %1 = data() {dtype = bool, name = \"flag\", shape = ints[]} : bool[]\n"
      "  %2 = cond(%1) region {\n"
      "    %3 = exp(%0) : float32[2, 5]\n"
      "    %4 = sum(%3) {axis = ints[1], dtype = none, keepdim = true} : float32[2, 1]\n"
      "    %5 = divide(%3, %4) : float32[2, 5]\n"
      "    yield([%5])\n"
      "  } region {\n"
      "    yield([%0])\n"
      "  } : float32[2, 5]\n"
      "  pass_outputs([%2])\n"));
  EXPECT_EQ(body(out),
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[2, 5]} : float32[2, 5]\n"
      "  %1 = data() {dtype = bool, name = \"flag\", shape = ints[]} : bool[]\n"
      "  %2 = cond(%1) region {\n"
      "    %3 = softmax(%0) {axis = 1, dtype = none} : float32[2, 5]\n"
      "    yield([%3])\n"
      "  } region {\n"
      "    yield([%0])\n"
      "  } : float32[2, 5]\n"
      "  pass_outputs([%2])\n");
}

TEST(PassConstantFolding, FoldsConstantsToFullOrToNewParameters) {
  ConstantFolding cf;
  const std::string out = run_on(cf, program(std::string(kX) +
      "  %1 = full() {dtype = none, fill_value = scalar(2.0), shape = ints[2, 3]} : float32[2, 3]\n"
      "  %2 = ones() {dtype = none, shape = ints[2, 3]} : float32[2, 3]\n"
      "  %3 = add(%1, %2) : float32[2, 3]\n"
      "  %4 = exp(%3) : float32[2, 3]\n"
      "  %5 = multiply(%0, %4) : float32[2, 3]\n"
      "  %6 = uniform() {dtype = none, max = 1.0, min = -1.0, seed = 0, shape = ints[2, 3]} : float32[2, 3]\n"
      "  %7 = exp(%6) : float32[2, 3]\n"
      "  %8 = arange() {dtype = float32, end = scalar(6), start = scalar(0), step = scalar(1)} : float32[6]\n"
      "  %9 = reshape(%8) {shape = ints[2, 3]} : float32[2, 3]\n"
      "  pass_outputs([%5, %7, %9])\n"), true);
  // exp(2 + 1) folds to one full; the random draw stays; arange reshaped is no splat and,
  // without a parameter store, stays.
  EXPECT_TRUE(has(out, "  %1 = full() {dtype = float32, fill_value = scalar(20.08553") ||
              has(out, "  %1 = full() {dtype = float32, fill_value = scalar(20.0855")) << out;
  EXPECT_TRUE(has(out, "  %2 = multiply(%0, %1) : float32[2, 3]\n")) << out;
  EXPECT_TRUE(has(out, "uniform()")) << out;
  EXPECT_TRUE(has(out, "reshape(")) << out;

  // With a store, non-splat results become parameters; with frozen parameters, weight-only
  // subgraphs fold too.
  ParameterStore params;
  params["w"] = randn({3, 4}, DType::Float64);
  ConstantFolding frozen(&params, /*frozen_parameters=*/true);
  const std::string out2 = run_on(frozen, program(
      "  %0 = data() {dtype = float64, name = \"x\", shape = ints[-1, 4]} : float64[-1, 4]\n"
      "  %1 = parameter() {dtype = float64, name = \"w\", shape = ints[3, 4]} : float64[3, 4]\n"
      "  %2 = transpose(%1) {perm = ints[1, 0]} : float64[4, 3]\n"
      "  %3 = scale(%2) {bias = scalar(0.0), bias_after_scale = true, scale = scalar(2.0)} : float64[4, 3]\n"
      "  %4 = matmul(%0, %3) {transpose_x = false, transpose_y = false} : float64[-1, 3]\n"
      "  pass_outputs([%4])\n"), true);
  EXPECT_EQ(body(out2),
      "  %0 = data() {dtype = float64, name = \"x\", shape = ints[-1, 4]} : float64[-1, 4]\n"
      "  %1 = parameter() {dtype = float64, name = \"w\", shape = ints[3, 4]} : float64[3, 4]\n"
      "  %2 = parameter() {dtype = float64, name = \"folded_constant\", shape = ints[4, 3]} : float64[4, 3]\n"
      "  %3 = matmul(%0, %2) {transpose_x = false, transpose_y = false} : float64[-1, 3]\n"
      "  pass_outputs([%3])\n");
  ASSERT_TRUE(params.count("folded_constant"));
  EXPECT_LT(max_abs_diff(params["folded_constant"], scale(transpose(params["w"], {1, 0}), 2.0)), 1e-15);
  // Not frozen: parameters are not constants.
  ConstantFolding training(&params, false);
  const std::string src = program(
      "  %0 = parameter() {dtype = float64, name = \"w\", shape = ints[3, 4]} : float64[3, 4]\n"
      "  %1 = transpose(%0) {perm = ints[1, 0]} : float64[4, 3]\n"
      "  pass_outputs([%1])\n");
  EXPECT_EQ(run_on(training, src), src);
}

namespace {

// Runs the program on the executor (oar/runtime) and returns the `outputs`.
std::vector<Tensor> execute(const std::shared_ptr<Program>& p, const ParameterStore& feeds,
                            const ParameterStore& params, const std::vector<Value*>& outputs) {
  runtime::Executor ex(p);
  return ex.run(feeds, params, std::vector<const Value*>(outputs.begin(), outputs.end()));
}

// Parses `text` (its outputs: the operands of the final pass_outputs), runs it on the executor
// with random feeds and parameters, optimises it with the passes `setup` adds (given the
// parameter store, which passes may extend), runs it again and checks both runs agree.
std::string check_numerics(const std::function<void(PassManager&, ParameterStore&)>& setup, const std::string& text,
                           double tol = 1e-10) {
  std::shared_ptr<Program> p = parse(text);
  verify(*p);
  Operation* pin = p->block().ops().back().get();
  EXPECT_EQ(pin->name(), kOutputsOp);
  std::vector<Value*> outputs = pin->operands();
  p->block().erase(pin);
  ParameterStore feeds, params;
  int64_t seed = 1;
  for (auto& op : p->block().ops()) {
    if (op->name() != "data" && op->name() != "parameter") continue;
    const TensorType& t = op->result(0)->type();
    std::vector<int64_t> shape = t.shape;
    for (int64_t& d : shape)
      if (d < 0) d = 3;  // a size for the unknown (batch) dims
    Tensor v = cast(uniform(shape, DType::Float64, 0.5, 1.5, seed++), t.dtype);
    (op->name() == "data" ? feeds : params).emplace(op->attr("name")->as_string(), v);
  }
  const std::vector<Tensor> before = execute(p, feeds, params, outputs);
  PassManager pm;
  setup(pm, params);
  pm.set_verify(true);
  pm.run(*p, &outputs);
  const std::vector<Tensor> after = execute(p, feeds, params, outputs);
  EXPECT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size() && i < after.size(); ++i)
    EXPECT_LT(max_abs_diff(before[i], after[i]), tol) << "output " << i;
  return print(*p);
}

}  // namespace

TEST(PassNumerics, TheInferencePipelineKeepsTheResults) {
  auto f64 = [](std::string text) {
    for (size_t at; (at = text.find("float32")) != std::string::npos;) text.replace(at, 7, "float64");
    return text;
  };
  auto inference = [](PassManager& pm, ParameterStore& params) { add_inference_passes(pm, &params); };
  // Linear + gelu, softmax, layer_norm with its weight, an elementwise chain, a weight-only
  // subgraph (folded with frozen parameters) and duplicated work.
  const std::string mlp = check_numerics(inference, f64(program(
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[-1, 3]} : float32[-1, 3]\n"
      "  %1 = parameter() {dtype = float32, name = \"w\", shape = ints[3, 4]} : float32[3, 4]\n"
      "  %2 = parameter() {dtype = float32, name = \"b\", shape = ints[4]} : float32[4]\n"
      "  %3 = matmul(%0, %1) {transpose_x = false, transpose_y = false} : float32[-1, 4]\n"
      "  %4 = add(%3, %2) : float32[-1, 4]\n"
      "  %5 = gelu(%4) {approximate = true} : float32[-1, 4]\n"
      "  %6 = max(%5) {axis = ints[-1], keepdim = true} : float32[-1, 1]\n"
      "  %7 = subtract(%5, %6) : float32[-1, 4]\n"
      "  %8 = exp(%7) : float32[-1, 4]\n"
      "  %9 = sum(%8) {axis = ints[-1], dtype = none, keepdim = true} : float32[-1, 1]\n"
      "  %10 = divide(%8, %9) : float32[-1, 4]\n"
      "  %11 = mean(%10) {axis = ints[-1], keepdim = true} : float32[-1, 1]\n"
      "  %12 = subtract(%10, %11) : float32[-1, 4]\n"
      "  %13 = multiply(%12, %12) : float32[-1, 4]\n"
      "  %14 = mean(%13) {axis = ints[-1], keepdim = true} : float32[-1, 1]\n"
      "  %15 = full() {dtype = float32, fill_value = scalar(1e-05), shape = ints[]} : float32[]\n"
      "  %16 = add(%14, %15) : float32[-1, 1]\n"
      "  %17 = rsqrt(%16) : float32[-1, 1]\n"
      "  %18 = multiply(%12, %17) : float32[-1, 4]\n"
      "  %19 = parameter() {dtype = float32, name = \"g\", shape = ints[4]} : float32[4]\n"
      "  %20 = multiply(%18, %19) : float32[-1, 4]\n"
      "  %21 = tanh(%20) : float32[-1, 4]\n"
      "  %22 = exp(%21) : float32[-1, 4]\n"
      "  %23 = sqrt(%22) : float32[-1, 4]\n"
      "  %24 = parameter() {dtype = float32, name = \"w2\", shape = ints[4, 4]} : float32[4, 4]\n"
      "  %25 = transpose(%24) {perm = ints[1, 0]} : float32[4, 4]\n"
      "  %26 = scale(%25) {bias = scalar(1.0), bias_after_scale = true, scale = scalar(0.5)} : float32[4, 4]\n"
      "  %27 = matmul(%23, %26) {transpose_x = false, transpose_y = false} : float32[-1, 4]\n"
      "  %28 = matmul(%23, %26) {transpose_x = false, transpose_y = false} : float32[-1, 4]\n"
      "  %29 = add(%27, %28) : float32[-1, 4]\n"
      "  pass_outputs([%29, %10])\n")));
  EXPECT_TRUE(has(mlp, "fused_matmul_bias(")) << mlp;
  EXPECT_TRUE(has(mlp, "softmax(")) << mlp;
  EXPECT_TRUE(has(mlp, "layer_norm(")) << mlp;
  EXPECT_TRUE(has(mlp, "fused_elementwise(")) << mlp;
  EXPECT_TRUE(has(mlp, "name = \"folded_constant\"")) << mlp;
  EXPECT_FALSE(has(mlp, "transpose(")) << mlp;

  // conv + bias + batch_norm (inference) + relu: one conv over folded parameters.
  const std::string conv = check_numerics(inference, program(
      "  %0 = data() {dtype = float64, name = \"img\", shape = ints[-1, 3, 6, 6]} : float64[-1, 3, 6, 6]\n"
      "  %1 = parameter() {dtype = float64, name = \"k\", shape = ints[4, 3, 3, 3]} : float64[4, 3, 3, 3]\n"
      "  %2 = parameter() {dtype = float64, name = \"kb\", shape = ints[4]} : float64[4]\n"
      "  %3 = parameter() {dtype = float64, name = \"mean\", shape = ints[4]} : float64[4]\n"
      "  %4 = parameter() {dtype = float64, name = \"var\", shape = ints[4]} : float64[4]\n"
      "  %5 = parameter() {dtype = float64, name = \"gamma\", shape = ints[4]} : float64[4]\n"
      "  %6 = parameter() {dtype = float64, name = \"beta\", shape = ints[4]} : float64[4]\n"
      "  %7 = conv2d(%0, %1, none) {data_format = \"NCHW\", dilation = ints[1], groups = 1, padding = ints[1], "
      "padding_algorithm = \"EXPLICIT\", stride = ints[1]} : float64[-1, 4, 6, 6]\n"
      "  %8 = reshape(%2) {shape = ints[1, 4, 1, 1]} : float64[1, 4, 1, 1]\n"
      "  %9 = add(%7, %8) : float64[-1, 4, 6, 6]\n"
      "  %10, %11, %12 = batch_norm_base(%9, %3, %4, %5, %6) {channel_axis = 1, epsilon = 0.001, momentum = 0.9, "
      "update_running = false, use_batch_stats = false} : float64[-1, 4, 6, 6], float64[4], float64[4]\n"
      "  %13 = relu(%10) : float64[-1, 4, 6, 6]\n"
      "  pass_outputs([%13])\n"));
  EXPECT_TRUE(has(conv, "fused_conv2d_bias_act(%0, %7, %8) {activation = \"relu\"")) << conv;
  EXPECT_FALSE(has(conv, "batch_norm_base")) << conv;
}

TEST(PassNumerics, EachPassAloneKeepsTheResults) {
  const std::string src = program(
      "  %0 = data() {dtype = float64, name = \"x\", shape = ints[2, 3]} : float64[2, 3]\n"
      "  %1 = data() {dtype = float64, name = \"y\", shape = ints[2, 3]} : float64[2, 3]\n"
      "  %2 = exp(%0) : float64[2, 3]\n"
      "  %3 = exp(%0) : float64[2, 3]\n"
      "  %4 = add(%2, %3) : float64[2, 3]\n"
      "  %5 = ones() {dtype = float64, shape = ints[2, 3]} : float64[2, 3]\n"
      "  %6 = multiply(%4, %5) : float64[2, 3]\n"
      "  %7 = transpose(%6) {perm = ints[1, 0]} : float64[3, 2]\n"
      "  %8 = transpose(%7) {perm = ints[1, 0]} : float64[2, 3]\n"
      "  %9 = relu(%8) : float64[2, 3]\n"
      "  %10 = tanh(%9) : float64[2, 3]\n"
      "  %11 = multiply(%10, %1) : float64[2, 3]\n"
      "  %12 = sqrt(%1) : float64[2, 3]\n"
      "  %13 = full() {dtype = float64, fill_value = scalar(2.0), shape = ints[2, 3]} : float64[2, 3]\n"
      "  %14 = exp(%13) : float64[2, 3]\n"
      "  %15 = divide(%11, %14) : float64[2, 3]\n"
      "  pass_outputs([%15, %4])\n");
  // Each pass, what it must have done (a line that must no longer / now appear), numerics equal.
  struct Case {
    std::function<void(PassManager&, ParameterStore&)> setup;
    std::string gone, appears;
  };
  const std::vector<Case> cases = {
      {[](PassManager& pm, ParameterStore&) { pm.add<DeadCodeElimination>(); }, "sqrt(", ""},
      {[](PassManager& pm, ParameterStore&) { pm.add<CommonSubexpressionElimination>(); }, "exp(%0) : float64[2, 3]\n  %3 = exp(%0)", "add(%2, %2)"},
      {[](PassManager& pm, ParameterStore&) { pm.add<AlgebraicSimplification>(); }, "", "relu(%4)"},
      {[](PassManager& pm, ParameterStore& ps) { pm.add<ConstantFolding>(&ps, true); }, "exp(%13)", "scalar(7.389056"},
      {[](PassManager& pm, ParameterStore&) { pm.add<ElementwiseFusion>(); }, "tanh(", "fused_elementwise("},
  };
  for (const Case& c : cases) {
    const std::string out = check_numerics(c.setup, src);
    if (!c.gone.empty()) EXPECT_FALSE(has(out, c.gone)) << out;
    if (!c.appears.empty()) EXPECT_TRUE(has(out, c.appears)) << out;
  }
}

// blocked_conv: conv + bias + relu, a padded ceil-mode max pool, conv + residual add + relu, a
// 1x1 conv read by a sigmoid (NCHW) and a global average pool; 70 channels (a partial block).
TEST(PassBlockedConv, FusesEpiloguesAndKeepsActivationsBlocked) {
  const std::string conv_attrs = "data_format = \"NCHW\", dilation = ints[1], groups = 1, padding = ints[1], "
                                 "padding_algorithm = \"EXPLICIT\", stride = ints[1]";
  const std::string text = program(
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[-1, 3, 9, 9]} : float32[-1, 3, 9, 9]\n"
      "  %1 = parameter() {dtype = float32, name = \"w1\", shape = ints[70, 3, 3, 3]} : float32[70, 3, 3, 3]\n"
      "  %2 = parameter() {dtype = float32, name = \"b1\", shape = ints[70]} : float32[70]\n"
      "  %3 = parameter() {dtype = float32, name = \"w2\", shape = ints[70, 70, 3, 3]} : float32[70, 70, 3, 3]\n"
      "  %4 = parameter() {dtype = float32, name = \"w3\", shape = ints[5, 70, 1, 1]} : float32[5, 70, 1, 1]\n"
      "  %5 = fused_conv2d_bias_act(%0, %1, %2) {activation = \"relu\", " + conv_attrs + "} : float32[-1, 70, 9, 9]\n"
      "  %6 = max_pool2d(%5) {ceil_mode = true, data_format = \"NCHW\", kernel_size = ints[3], padding = ints[1], "
      "padding_algorithm = \"EXPLICIT\", stride = ints[2]} : float32[-1, 70, 5, 5]\n"
      "  %7 = conv2d(%6, %3, none) {" + conv_attrs + "} : float32[-1, 70, 5, 5]\n"
      "  %8 = add(%6, %7) : float32[-1, 70, 5, 5]\n"
      "  %9 = relu(%8) : float32[-1, 70, 5, 5]\n"
      "  %10 = conv2d(%9, %4, none) {data_format = \"NCHW\", dilation = ints[1], groups = 1, padding = ints[0], "
      "padding_algorithm = \"EXPLICIT\", stride = ints[1]} : float32[-1, 5, 5, 5]\n"
      "  %11 = sigmoid(%10) : float32[-1, 5, 5, 5]\n"
      "  %12 = adaptive_avg_pool2d(%9) {data_format = \"NCHW\", output_size = ints[1, 1]} : float32[-1, 70, 1, 1]\n"
      "  pass_outputs([%11, %12])\n");
  auto setup = [](PassManager& pm, ParameterStore&) { pm.add<BlockedConvolutions>(); };
  // Inputs in [0.5, 1.5]: the second conv's results are ~2e4, so 0.05 is ~2.5e-6 relative
  // (blocked and NCHW convolutions sum in different orders).
  const std::string out = check_numerics(setup, text, 0.05);
  EXPECT_TRUE(has(out, "conv2d_fused(%0, %1, %2, none) {activation = \"relu\", blocked_out = true")) << out;
  EXPECT_TRUE(has(out, "max_pool2d_blocked(")) << out;
  EXPECT_TRUE(has(out, "global_avg_pool2d_blocked(")) << out;
  // The residual conv takes the pool's blocked result as input and as residual, relu included.
  EXPECT_TRUE(has(out, "activation = \"relu\", blocked_out = true, dilation = ints[1, 1], groups = 1, padding = ints[1, 1, 1, 1]")) << out;
  // The 1x1 conv reads blocked input and writes NCHW for the sigmoid; the average is converted back.
  EXPECT_TRUE(has(out, "{activation = \"none\", blocked_out = false")) << out;
  EXPECT_EQ(out.find("to_blocked_layout("), std::string::npos) << out;
  EXPECT_FALSE(has(out, "conv2d(") || has(out, " add(") || has(out, "relu(") || has(out, "max_pool2d(")) << out;
  size_t plain = 0;
  for (size_t at = 0; (at = out.find("to_plain_layout(", at)) != std::string::npos; ++at) ++plain;
  EXPECT_EQ(plain, 1u) << out;
}

TEST(PassBlockedConv, LeavesFloat64ConvolutionsAlone) {
  const std::string text = program(
      "  %0 = data() {dtype = float64, name = \"x\", shape = ints[2, 3, 5, 5]} : float64[2, 3, 5, 5]\n"
      "  %1 = parameter() {dtype = float64, name = \"w\", shape = ints[4, 3, 3, 3]} : float64[4, 3, 3, 3]\n"
      "  %2 = conv2d(%0, %1, none) {data_format = \"NCHW\", dilation = ints[1], groups = 1, padding = ints[1], "
      "padding_algorithm = \"EXPLICIT\", stride = ints[1]} : float64[2, 4, 5, 5]\n"
      "  pass_outputs([%2])\n");
  BlockedConvolutions pass;
  const std::string out = run_on(pass, text);
  EXPECT_TRUE(has(out, "conv2d(%0, %1, none)")) << out;
}

TEST(PassBlockedConv, ConvolutionsReadFewChannelsInNchw) {
  // 6 channels: the pool runs blocked (a vector per pixel either way), but the next conv reads
  // NCHW (padded to 16 lanes it would do 2.7x the multiply-adds). The first conv has 8 x 3 x 3
  // taps, too many for conv2d_max_pool_fused.
  const std::string text = program(
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[-1, 8, 8, 8]} : float32[-1, 8, 8, 8]\n"
      "  %1 = parameter() {dtype = float32, name = \"w\", shape = ints[6, 8, 3, 3]} : float32[6, 8, 3, 3]\n"
      "  %2 = parameter() {dtype = float32, name = \"b\", shape = ints[6]} : float32[6]\n"
      "  %3 = fused_conv2d_bias_act(%0, %1, %2) {activation = \"relu\", data_format = \"NCHW\", dilation = ints[1], "
      "groups = 1, padding = ints[1], padding_algorithm = \"EXPLICIT\", stride = ints[1]} : float32[-1, 6, 8, 8]\n"
      "  %4 = max_pool2d(%3) {ceil_mode = false, data_format = \"NCHW\", kernel_size = ints[2], padding = ints[0], "
      "padding_algorithm = \"EXPLICIT\", stride = ints[2]} : float32[-1, 6, 4, 4]\n"
      "  %5 = parameter() {dtype = float32, name = \"w2\", shape = ints[16, 6, 3, 3]} : float32[16, 6, 3, 3]\n"
      "  %6 = conv2d(%4, %5, none) {data_format = \"NCHW\", dilation = ints[1], groups = 1, padding = ints[0], "
      "padding_algorithm = \"EXPLICIT\", stride = ints[1]} : float32[-1, 16, 2, 2]\n"
      "  pass_outputs([%6])\n");
  auto setup = [](PassManager& pm, ParameterStore&) { pm.add<BlockedConvolutions>(); };
  const std::string out = check_numerics(setup, text, 1e-3);
  EXPECT_TRUE(has(out, "conv2d_fused(%0, %1, %2, none) {activation = \"relu\", blocked_out = true")) << out;
  EXPECT_TRUE(has(out, "max_pool2d_blocked(")) << out;
  EXPECT_TRUE(has(out, "to_plain_layout(%4) {channels = 6} : float32[-1, 6, 4, 4]")) << out;
  EXPECT_TRUE(has(out, "conv2d_fused(%5, %6, none, none) {activation = \"none\", blocked_out = false")) << out;
  EXPECT_FALSE(has(out, "conv2d_max_pool_fused(")) << out;
}

TEST(PassBlockedConv, FusesFewChannelFirstLayerWithItsPool) {
  // LeNet's first layer: 1 -> 6 channels, 9 taps, read only by a max pool. One op computes both,
  // NCHW out (never the 8x8 output padded to 16 channels); the next conv reads it as it is.
  const std::string text = program(
      "  %0 = data() {dtype = float32, name = \"x\", shape = ints[-1, 1, 8, 8]} : float32[-1, 1, 8, 8]\n"
      "  %1 = parameter() {dtype = float32, name = \"w\", shape = ints[6, 1, 3, 3]} : float32[6, 1, 3, 3]\n"
      "  %2 = parameter() {dtype = float32, name = \"b\", shape = ints[6]} : float32[6]\n"
      "  %3 = fused_conv2d_bias_act(%0, %1, %2) {activation = \"relu\", data_format = \"NCHW\", dilation = ints[1], "
      "groups = 1, padding = ints[1], padding_algorithm = \"EXPLICIT\", stride = ints[1]} : float32[-1, 6, 8, 8]\n"
      "  %4 = max_pool2d(%3) {ceil_mode = true, data_format = \"NCHW\", kernel_size = ints[3], padding = ints[1], "
      "padding_algorithm = \"EXPLICIT\", stride = ints[2]} : float32[-1, 6, 5, 5]\n"
      "  %5 = parameter() {dtype = float32, name = \"w2\", shape = ints[16, 6, 3, 3]} : float32[16, 6, 3, 3]\n"
      "  %6 = conv2d(%4, %5, none) {data_format = \"NCHW\", dilation = ints[1], groups = 1, padding = ints[0], "
      "padding_algorithm = \"EXPLICIT\", stride = ints[1]} : float32[-1, 16, 3, 3]\n"
      "  pass_outputs([%6])\n");
  auto setup = [](PassManager& pm, ParameterStore&) { pm.add<BlockedConvolutions>(); };
  const std::string out = check_numerics(setup, text, 1e-3);
  EXPECT_TRUE(has(out, "conv2d_max_pool_fused(%0, %1, %2) {activation = \"relu\", ceil_mode = true, padding = ints[1, 1, 1, 1], "
                       "pool_kernel = ints[3, 3], pool_padding = ints[1, 1, 1, 1], pool_stride = ints[2, 2]} : float32[-1, 6, 5, 5]"))
      << out;
  EXPECT_TRUE(has(out, "conv2d_fused(%3, %4, none, none) {activation = \"none\", blocked_out = false")) << out;
  EXPECT_FALSE(has(out, "max_pool2d") || has(out, "layout(")) << out;
}
