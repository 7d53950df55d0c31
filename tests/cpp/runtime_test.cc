// GoogleTest for running programs from C++: the tracer (op calls -> program), the executor
// (numbers equal eager, control flow, errors with context, intermediates freed early), the model
// files (safetensors weights and the program text, atomic writes, clear errors on damage) and
// the inference predictor (Config, handles, Run, Clone), all without Python.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error_of.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "oar/inference/predictor.h"
#include "oar/inference/thread_tuner.h"
#include "oar/io/atomic_file.h"
#include "oar/io/safetensors.h"
#include "oar/ir/block.h"
#include "oar/ir/tracer.h"
#include "oar/ir/verifier.h"
#include "oar/jit/model_file.h"
#include "oar/oar.h"
#include "oar/runtime/executor.h"

using namespace oar;

namespace {

std::string temp_path(const std::string& name) {
  return std::string(::testing::TempDir()) + "/oar_runtime_" + name;
}

// A traced two-layer MLP: x[-1, 4] -> relu(x w1 + b1) w2, with its weights.
struct Mlp {
  std::shared_ptr<ir::Program> program = std::make_shared<ir::Program>();
  Tensor w1 = randn({4, 8}), b1 = randn({8}), w2 = randn({8, 3});
  Tensor x_sym, out_sym;
  runtime::NamedTensors params;

  Mlp() {
    w1.set_name("w1");
    b1.set_name("b1");
    w2.set_name("w2");
    ir::Tracer tracer(program);
    {
      ir::TracingScope scope(&tracer);
      x_sym = tracer.data("x", DType::Float32, {-1, 4});
      out_sym = matmul(relu(add(matmul(x_sym, w1), b1)), w2);
      tracer.record("fetch", {{out_sym}}, {{"name", ir::Attribute::string("logits")}});
    }
    for (auto& [name, t] : tracer.captured()) params[name] = t;
  }
  Tensor eager(const Tensor& x) const { return matmul(relu(add(matmul(x, w1), b1)), w2); }
};

}  // namespace

TEST(Tracer, RecordsOpCallsWithUnknownDims) {
  manual_seed(1);
  Mlp m;
  EXPECT_TRUE(m.out_sym.is_symbolic());
  EXPECT_EQ(m.out_sym.shape(), Shape({-1, 3}));
  ir::verify(*m.program);
  EXPECT_EQ(m.program->parameter_names(), (std::vector<std::string>{"w1", "b1", "w2"}));
  EXPECT_NE(error_of([&] { m.out_sym.data<float>(); }).find("static program"), std::string::npos);
  // Outside the scope ops run eagerly again.
  EXPECT_FALSE(add(m.w1, m.w1).is_symbolic());
}

TEST(Executor, MatchesEagerAndChecksFeeds) {
  manual_seed(2);
  Mlp m;
  runtime::Executor exe(m.program);
  Tensor x = randn({5, 4});
  runtime::RunStats stats;
  auto out = exe.run({{"x", x}}, m.params, {ir::traced(m.out_sym)->value}, &stats);
  EXPECT_TRUE(allclose(out[0], m.eager(x), 1e-6, 1e-6).item<bool>());
  EXPECT_GT(stats.ops_run, 0);
  EXPECT_NE(error_of([&] { exe.run({{"x", randn({5, 3})}}, m.params, {}); })
                .find("input 'x': expected float32[-1, 4], got float32[5, 3]"),
            std::string::npos);
  EXPECT_NE(error_of([&] { exe.run({}, m.params, {}); }).find("needs input 'x'"), std::string::npos);
  runtime::NamedTensors no_w2 = m.params;
  no_w2.erase("w2");
  EXPECT_NE(error_of([&] { exe.run({{"x", x}}, no_w2, {}); }).find("parameter 'w2'"), std::string::npos);
}

TEST(Executor, ControlFlowAndErrorContext) {
  auto program = std::make_shared<ir::Program>();
  ir::Tracer tracer(program);
  Tensor x_sym, y_sym, loop_sym;
  {
    ir::TracingScope scope(&tracer);
    x_sym = tracer.data("x", DType::Float32, {3});
    Tensor pred = greater_than(sum(x_sym), zeros({}));
    y_sym = tracer.cond(pred, [&] { return std::vector<Tensor>{multiply(x_sym, x_sym)}; },
                        [&] { return std::vector<Tensor>{neg(x_sym)}; })[0];
    loop_sym = tracer.while_loop(
        {x_sym}, [&](const std::vector<Tensor>& v) { return less_than(sum(abs(v[0])), full({}, 100.0)); },
        [&](const std::vector<Tensor>& v) { return std::vector<Tensor>{scale(v[0], 2.0)}; })[0];
  }
  runtime::Executor exe(program);
  const std::vector<const ir::Value*> fetch{ir::traced(y_sym)->value, ir::traced(loop_sym)->value};
  auto pos = exe.run({{"x", Tensor::from_vector<float>({1, 2, 3}, {3})}}, {}, fetch);
  EXPECT_EQ(pos[0].to_vector<float>(), (std::vector<float>{1, 4, 9}));
  EXPECT_EQ(pos[1].to_vector<float>(), (std::vector<float>{32, 64, 96}));  // sum 6 -> 12 -> ... -> 96 -> 192
  auto neg_out = exe.run({{"x", Tensor::from_vector<float>({-1, -2, -3}, {3})}}, {}, {ir::traced(y_sym)->value});
  EXPECT_EQ(neg_out[0].to_vector<float>(), (std::vector<float>{1, 2, 3}));
}

TEST(Executor, FreesIntermediatesAfterTheirLastReader) {
  // A chain of 20 elementwise ops on 4 MB: with liveness, at most a few buffers are live at once.
  auto program = std::make_shared<ir::Program>();
  ir::Tracer tracer(program);
  Tensor out;
  {
    ir::TracingScope scope(&tracer);
    Tensor h = tracer.data("x", DType::Float32, {1 << 20});
    for (int i = 0; i < 20; ++i) h = i % 2 ? exp(h) : tanh(h);
    out = h;
  }
  runtime::Executor exe(program);
  runtime::RunStats stats;
  exe.run({{"x", randn({1 << 20})}}, {}, {ir::traced(out)->value}, &stats);
  EXPECT_EQ(stats.ops_run, 21);
  EXPECT_LE(stats.peak_bytes, 3 * (4 << 20));  // never 20 intermediates
}

TEST(Executor, RunsElementwiseOpsInPlaceOnlyOverValuesNobodyElseReads) {
  // exp(x) dies at relu: relu writes over it. a = exp(x) fetched: nothing runs over it. A view
  // of a dying value read by the same op, and the feed itself, are never overwritten.
  auto program = std::make_shared<ir::Program>();
  ir::Tracer tracer(program);
  Tensor x_sym, a_sym, b_sym, c_sym, d_sym;
  {
    ir::TracingScope scope(&tracer);
    x_sym = tracer.data("x", DType::Float32, {-1, 4});
    a_sym = exp(x_sym);
    b_sym = relu(a_sym);                     // a dies here (unless fetched)
    Tensor t = tanh(b_sym);
    c_sym = add(t, t.reshape({-1, 4}));      // t dies here, but its view is the other operand
    d_sym = add(relu(x_sym), c_sym);         // relu over the feed: never in place; add over relu's result
  }
  runtime::Executor exe(program);
  const Tensor x = randn({3, 4});
  const std::vector<float> x_before = x.to_vector<float>();
  const Tensor a_ref = exp(x), b_ref = relu(a_ref), t_ref = tanh(b_ref), c_ref = add(t_ref, t_ref);
  const Tensor d_ref = add(relu(x), c_ref);
  runtime::RunStats stats;
  auto out = exe.run({{"x", x}}, {}, {ir::traced(d_sym)->value}, &stats);
  EXPECT_TRUE(allclose(out[0], d_ref, 1e-6, 1e-6).item<bool>());
  EXPECT_EQ(stats.ops_in_place, 3);  // relu over exp(x), tanh over relu, the last add over relu(x)
  EXPECT_EQ(x.to_vector<float>(), x_before);
  // Fetching the intermediates keeps them intact: relu does not overwrite a, the add not c.
  out = exe.run({{"x", x}}, {}, {ir::traced(a_sym)->value, ir::traced(b_sym)->value, ir::traced(c_sym)->value,
                                 ir::traced(d_sym)->value}, &stats);
  EXPECT_TRUE(allclose(out[0], a_ref, 1e-6, 1e-6).item<bool>());
  EXPECT_TRUE(allclose(out[1], b_ref, 1e-6, 1e-6).item<bool>());
  EXPECT_TRUE(allclose(out[2], c_ref, 1e-6, 1e-6).item<bool>());
  EXPECT_TRUE(allclose(out[3], d_ref, 1e-6, 1e-6).item<bool>());
  EXPECT_EQ(stats.ops_in_place, 1);  // only the add over relu(x), which nobody fetched (tanh's b is)
  EXPECT_NE(out[0].impl()->storage, out[1].impl()->storage);
  EXPECT_EQ(x.to_vector<float>(), x_before);
}

TEST(Executor, InPlaceStepsLowerThePeakOfAChain) {
  // 20 elementwise ops over 4 MB: each writes over its dying operand, so one buffer is live.
  auto program = std::make_shared<ir::Program>();
  ir::Tracer tracer(program);
  Tensor out;
  {
    ir::TracingScope scope(&tracer);
    Tensor h = exp(tracer.data("x", DType::Float32, {1 << 20}));
    for (int i = 0; i < 19; ++i) h = i % 2 ? sigmoid(h) : tanh(h);
    out = h;
  }
  runtime::Executor exe(program);
  runtime::RunStats stats;
  const Tensor x = randn({1 << 20});
  auto got = exe.run({{"x", x}}, {}, {ir::traced(out)->value}, &stats);
  EXPECT_EQ(stats.ops_in_place, 19);
  EXPECT_LE(stats.peak_bytes, (4 << 20) + 4096);
  Tensor ref = exp(x);
  for (int i = 0; i < 19; ++i) ref = i % 2 ? sigmoid(ref) : tanh(ref);
  EXPECT_TRUE(allclose(got[0], ref, 1e-6, 1e-6).item<bool>());
}

// The C++ writer names its temporaries as Python's does and sweeps those a dead writer of this
// host left beside the target; a live writer's, another host's, another target's and foreign
// files stay.
TEST(AtomicFile, SweepsTemporariesOfDeadWritersOnly) {
  const std::string dir = std::string(::testing::TempDir()) + "/oar_atomic_sweep";
  ::mkdir(dir.c_str(), 0777);
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);  // a pid no process has now
  const std::string host = io::host_tag(), other = host == "00000000" ? "11111111" : "00000000";
  const std::string stale = ".model.pdmodel." + host + "." + std::to_string(dead) + ".0123abcd.tmp";
  const std::vector<std::string> kept = {
      ".model.pdmodel." + host + "." + std::to_string(::getpid()) + ".0123abcd.tmp",  // a live writer
      ".model.pdmodel." + other + "." + std::to_string(dead) + ".0123abcd.tmp",       // another host's
      ".other.pdmodel." + host + "." + std::to_string(dead) + ".0123abcd.tmp",        // another target's
      "model.pdmodel.tmp.Ab3dEf"};                                                    // not ours to judge
  for (const auto& name : kept) std::ofstream(dir + "/" + name) << "partial";
  std::ofstream(dir + "/" + stale) << "partial";
  io::write_file_atomic(dir + "/model.pdmodel", "model");
  EXPECT_EQ(io::read_file(dir + "/model.pdmodel", "test"), "model");
  EXPECT_FALSE(std::ifstream(dir + "/" + stale).good());
  for (const auto& name : kept) EXPECT_TRUE(std::ifstream(dir + "/" + name).good()) << name;
  // The tag is Python's (zlib.crc32 of the host name), so each language sweeps the other's.
  if (FILE* p = ::popen("python3 -c \"import socket, zlib; print('%08x' % zlib.crc32(socket.gethostname()"
                        ".encode()))\" 2>/dev/null", "r")) {
    char line[32] = {};
    const bool got = std::fgets(line, sizeof(line), p) != nullptr;
    ::pclose(p);
    if (got) EXPECT_EQ(std::string(line).substr(0, 8), host);
  }
}

TEST(Safetensors, RoundTripAndDamage) {
  const std::string path = temp_path("w.safetensors");
  io::TensorMap ts{{"a", randn({2, 3})}, {"b", arange(0, 5, 1, DType::Int64)}, {"c", ones({}, DType::Bool)}};
  io::save_safetensors(path, ts, {{"k", "v"}});
  io::Metadata meta;
  io::TensorMap back = io::load_safetensors(path, &meta);
  EXPECT_EQ(meta["k"], "v");
  for (auto& [k, t] : ts) EXPECT_TRUE(equal_all(back.at(k), t).item<bool>()) << k;
  std::string bytes = io::read_file(path, "test");
  {
    std::ofstream(temp_path("cut.safetensors"), std::ios::binary) << bytes.substr(0, bytes.size() - 4);
  }
  EXPECT_NE(error_of([&] { io::load_safetensors(temp_path("cut.safetensors")); }).find("is truncated"),
            std::string::npos);
  std::string corrupt = bytes;
  corrupt[8] = '#';  // the header's opening brace
  { std::ofstream(temp_path("bad.safetensors"), std::ios::binary) << corrupt; }
  EXPECT_NE(error_of([&] { io::load_safetensors(temp_path("bad.safetensors")); }).find("header is corrupted"),
            std::string::npos);
  EXPECT_NE(error_of([&] { io::load_safetensors(temp_path("none.safetensors")); }).find("cannot be opened"),
            std::string::npos);
}

TEST(Predictor, LoadsSavedModelAndRunsFromCpp) {
  manual_seed(3);
  Mlp m;
  const std::string prefix = temp_path("mlp");
  io::TensorMap params(m.params.begin(), m.params.end());
  // Every op of the MLP has a Paddle form: Paddle 3's files (a PIR program, Paddle's tensor stream).
  const std::string model_file = jit::save_model(prefix, *m.program, params);
  EXPECT_EQ(model_file, prefix + ".json");
  inference::Config config(model_file, prefix + ".pdiparams");
  auto predictor = inference::CreatePredictor(config);
  EXPECT_EQ(predictor->GetInputNames(), (std::vector<std::string>{"x"}));
  EXPECT_EQ(predictor->GetOutputNames(), (std::vector<std::string>{"logits"}));
  Tensor x = randn({6, 4});
  auto in = predictor->GetInputHandle("x");
  in->Reshape({6, 4});
  in->CopyFromCpu(x.data<float>());
  ASSERT_TRUE(predictor->Run());
  auto out = predictor->GetOutputHandle("logits");
  EXPECT_EQ(out->shape(), (std::vector<int>{6, 3}));
  std::vector<float> got(18);
  out->CopyToCpu(got.data());
  EXPECT_TRUE(allclose(Tensor::from_vector(got, {6, 3}), m.eager(x), 1e-5, 1e-6).item<bool>());
  EXPECT_NE(error_of([&] { in->Reshape({6, 5}); }).find("input 'x': expected shape float32[-1, 4], got [6, 5]"),
            std::string::npos);
  std::vector<int64_t> ints(24);
  in->Reshape({6, 4});
  EXPECT_NE(error_of([&] { in->CopyFromCpu(ints.data()); }).find("input 'x' is float32, but CopyFromCpu was given int64"),
            std::string::npos);
  // A pool of clones serves threads at once.
  inference::PredictorPool pool(config, 2);
  std::vector<std::thread> threads;
  std::vector<std::vector<float>> results(2, std::vector<float>(18));
  for (size_t k = 0; k < 2; ++k)
    threads.emplace_back([&, k] {
      auto* p = pool.Retrieve(k);
      auto h = p->GetInputHandle("x");
      h->Reshape({6, 4});
      h->CopyFromCpu(x.data<float>());
      p->Run();
      p->GetOutputHandle("logits")->CopyToCpu(results[k].data());
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(results[0], got);
  EXPECT_EQ(results[1], got);
  // A damaged model file names itself.
  std::string text = io::read_file(model_file, "test");
  { std::ofstream(temp_path("cut.json")) << text.substr(0, text.size() / 2); }
  EXPECT_NE(error_of([&] { inference::CreatePredictor(inference::Config(temp_path("cut.json"), prefix + ".pdiparams")); })
                .find("cut.json' is corrupted or truncated"),
            std::string::npos);
  // A path naming the .pdmodel finds the .json jit.save wrote instead.
  EXPECT_EQ(inference::CreatePredictor(inference::Config(prefix + ".pdmodel", prefix + ".pdiparams"))->GetInputNames(),
            (std::vector<std::string>{"x"}));
}

TEST(Executor, InterOpThreadsRunIndependentOpsAndRethrowErrors) {
  // Four independent chains joined at the end: with 2 inter-op threads the results equal the
  // sequential run's, and an op failing on a worker thread is rethrown here with its context.
  auto program = std::make_shared<ir::Program>();
  ir::Tracer tracer(program);
  Tensor out, bad;
  {
    ir::TracingScope scope(&tracer);
    Tensor x = tracer.data("x", DType::Float32, {64, 64});
    Tensor w = tracer.data("w", DType::Float32, {-1, 64});
    std::vector<Tensor> chains;
    for (int c = 0; c < 4; ++c) chains.push_back(tanh(matmul(scale(x, 1.0 + c), x)));
    out = add(add(chains[0], chains[1]), add(chains[2], chains[3]));
    bad = matmul(x, w);  // fails at run time when w's first dim is not 64
  }
  Tensor x = randn({64, 64});
  NoGradGuard no_grad;
  runtime::Executor seq(program);
  runtime::Executor par(program, runtime::ExecutorOptions{2});
  runtime::NamedTensors feeds{{"x", x}, {"w", randn({64, 64})}};
  auto a = seq.run(feeds, {}, {ir::traced(out)->value, ir::traced(bad)->value});
  for (int rep = 0; rep < 5; ++rep) {
    auto b = par.run(feeds, {}, {ir::traced(out)->value, ir::traced(bad)->value});
    EXPECT_TRUE(equal_all(a[0], b[0]).item<bool>());
    EXPECT_TRUE(equal_all(a[1], b[1]).item<bool>());
  }
  feeds["w"] = randn({3, 64});
  const std::string err = error_of([&] { par.run(feeds, {}, {ir::traced(out)->value}); });
  EXPECT_NE(err.find("op 'matmul' (inputs: float32[64, 64], float32[3, 64])"), std::string::npos) << err;
}

TEST(ThreadCountTuner, RunsTheFastestCountAndFollowsChanges) {
  // Candidates 4, 2 and 1 on a made-up machine; each run reports the time its count takes.
  inference::ThreadCountTuner tuner(4);
  std::map<int, double> cost{{4, 1.0}, {2, 1.5}, {1, 3.0}};
  auto run = [&](int runs) {
    std::map<int, int> used;
    for (int i = 0; i < runs; ++i) {
      const int n = tuner.choose("[1, 3]");
      ++used[n];
      tuner.record("[1, 3]", n, cost.at(n));
    }
    return used;
  };
  // Quiet: all threads, besides the warm-up and the bursts that try the others.
  std::map<int, int> used = run(1024);
  EXPECT_GT(used[4], 950);
  EXPECT_GT(used[2], 0);
  EXPECT_GT(used[1], 0);
  // Contention: 4 threads wait on each other (20), 2 do not (2): the next runs take 2.
  cost = {{4, 20.0}, {2, 2.0}, {1, 3.0}};
  // (A burst may be under way, and the first run after a change of count is not kept.)
  run(10);
  used = run(100);
  EXPECT_GE(used[2], 94);  // at most one burst of 6 on another count
  EXPECT_LE(used[4], 6);
  // Quiet again: a burst on 4 finds it fast, and it takes over.
  cost = {{4, 1.0}, {2, 1.5}, {1, 3.0}};
  run(600);
  used = run(100);
  EXPECT_GE(used[4], 94);
  // Another input shape has its own times: it warms up from 4.
  EXPECT_EQ(tuner.choose("[8, 3]"), 4);
}

TEST(ThreadCountTuner, OneThreadAndPinnedCountsAreFixed) {
  inference::ThreadCountTuner one(1);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(one.choose("[1]"), 1);
    one.record("[1]", 1, 1.0);
  }
  setenv("OAR_PREDICTOR_ADAPTIVE_THREADS", "0", 1);
  inference::ThreadCountTuner pinned(4);
  unsetenv("OAR_PREDICTOR_ADAPTIVE_THREADS");
  for (int i = 0; i < 300; ++i) {
    EXPECT_EQ(pinned.choose("[1]"), 4);
    pinned.record("[1]", 4, 100.0);
  }
}

TEST(InferenceKernels, ConvMaxPoolFusedEqualsConvReluPoolAndChecksArguments) {
  // The predictor's fused first layer, called directly: equal to conv2d + relu + max_pool2d, over
  // overlapping padded ceil-mode windows and 5 filters (a partial group of 4).
  NoGradGuard no_grad;
  const Tensor x = randn({2, 3, 11, 37}), w = randn({5, 3, 3, 3}), b = randn({5});
  const Tensor ref = max_pool2d(relu(conv2d(x, w, b, 1, 1)), 3, 2, 1, true);
  const Tensor got = conv2d_max_pool_fused(x, w, b, {1, 1, 1, 1}, "relu", {3, 3}, {2, 2}, {1, 1, 1, 1}, true);
  EXPECT_EQ(got.shape(), ref.shape());
  EXPECT_TRUE(allclose(got, ref, 1e-5, 1e-5).item<bool>());
  auto fused = [&](const Tensor& xx, const Tensor& ww, const std::string& act, const IntArray& kernel) {
    return conv2d_max_pool_fused(xx, ww, b, {1, 1, 1, 1}, act, kernel, {2, 2}, {0, 0, 0, 0}, false);
  };
  EXPECT_NE(error_of([&] { fused(randn({3, 11, 37}), w, "relu", {2, 2}); }).find("x must be [N, C, H, W], got [3, 11, 37]"),
            std::string::npos);
  EXPECT_NE(error_of([&] { fused(randn({2, 4, 11, 37}), w, "relu", {2, 2}); }).find("must be [N, 3, H, W] for weight [5, 3, 3, 3]"),
            std::string::npos);
  EXPECT_NE(error_of([&] { fused(x, w, "gelu", {2, 2}); }).find("argument 'activation' must be none or relu, got 'gelu'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { fused(x, w, "relu", {2}); }).find("expected 2 pool kernel sizes, 2 strides and 4 paddings"),
            std::string::npos);
  EXPECT_NE(error_of([&] { fused(randn({1, 1, 2, 1100}), randn({5, 1, 1, 1}), "relu", {2, 2}); })
                .find("convolution rows wider than 1024 are not supported, got [1, 5, 4, 1102]"),
            std::string::npos);
}
