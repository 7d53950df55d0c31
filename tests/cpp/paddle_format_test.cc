// Paddle's model files from C++: a program written by paddle.jit.save (Paddle 3.3, PIR JSON) with
// its weights in Paddle's tensor stream, served by the predictor; the stream's reader and writer.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "error_of.h"
#include "oar/inference/predictor.h"
#include "oar/io/paddle_tensor_file.h"
#include "oar/jit/model_file.h"
#include "oar/jit/paddle_import.h"
#include "oar/oar.h"

using namespace oar;

namespace {

std::string temp_path(const std::string& name) { return std::string(::testing::TempDir()) + "/oar_paddle_" + name; }

void write(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

// relu(x @ linear_0.w_0 + linear_0.b_0) * 2.0 with x: float32[-1, 4], as paddle.jit.save wrote it.
const char* kLinearReluScale =
    R"J({"base_code":{"magic":"pir","trainable":true,"version":4},"program":{"regions":[{"#":"region_0","blocks":[{"#")J"
    R"J(:"block_0","args":[],"ops":[{"#":"p","A":[0,1,1,"linear_0.b_0"],"DA":[],"O":{"%":1,"TT":{"#":"0.t_dtensor","D")J"
    R"J(:[{"#":"0.t_f32"},[3],"NCHW",[],0]}},"OA":[1,0,1],"QA":[]},{"#":"p","A":[0,1,1,"linear_0.w_0"],"DA":[],"O":{"%)J"
    R"J(":2,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[4,3],"NCHW",[],0]}},"OA":[1,0,1],"QA":[]},{"#":"1.data","A":)J"
    R"J([{"AT":{"#":"0.a_str","D":"x"},"N":"name"},{"AT":{"#":"1.a_intarray","D":[-1,4]},"N":"shape"},{"AT":{"#":"1.a_)J"
    R"J(dtype","D":"float32"},"N":"dtype"},{"AT":{"#":"1.a_place","D":[0,0,""]},"N":"place"}],"I":[],"O":[{"%":3,"TT":)J"
    R"J({"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[-1,4],"NCHW",[],0]}}],"OA":[{"AT":{"#":"0.a_array","D":[{"#":"0.a_boo)J"
    R"J(l","D":false}]},"N":"stop_gradient"}]},{"#":"1.matmul","A":[{"AT":{"#":"0.a_bool","D":false},"N":"transpose_x")J"
    R"J(},{"AT":{"#":"0.a_bool","D":false},"N":"transpose_y"},{"AT":{"#":"0.a_str","D":"/Linear/"},"N":"struct_name"}])J"
    R"J(,"I":[{"%":3},{"%":2}],"O":[{"%":4,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[-1,3],"NCHW",[],0]}}],"OA":[{)J"
    R"J("AT":{"#":"0.a_array","D":[{"#":"0.a_bool","D":false}]},"N":"stop_gradient"}]},{"#":"1.add","A":[{"AT":{"#":"0)J"
    R"J(.a_str","D":"/Linear/"},"N":"struct_name"}],"I":[{"%":4},{"%":1}],"O":[{"%":5,"TT":{"#":"0.t_dtensor","D":[{"#)J"
    R"J(":"0.t_f32"},[-1,3],"NCHW",[],0]}}],"OA":[{"AT":{"#":"0.a_array","D":[{"#":"0.a_bool","D":false}]},"N":"stop_g)J"
    R"J(radient"}]},{"#":"1.relu","A":[],"I":[{"%":5}],"O":[{"%":6,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[-1,3])J"
    R"J(,"NCHW",[],0]}}],"OA":[{"AT":{"#":"0.a_array","D":[{"#":"0.a_bool","D":false}]},"N":"stop_gradient"}]},{"#":"1)J"
    R"J(.full","A":[{"AT":{"#":"1.a_intarray","D":[1]},"N":"shape"},{"AT":{"#":"0.a_f64","D":2.0},"N":"value"},{"AT":{)J"
    R"J("#":"1.a_dtype","D":"float32"},"N":"dtype"},{"AT":{"#":"1.a_place","D":[1,0,""]},"N":"place"}],"I":[],"O":[{"%)J"
    R"J(":7,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[1],"NCHW",[],0]}}],"OA":[{"AT":{"#":"0.a_array","D":[{"#":"0)J"
    R"J(.a_bool","D":true}]},"N":"stop_gradient"}]},{"#":"1.scale","A":[{"AT":{"#":"0.a_f32","D":0.0},"N":"bias"},{"AT)J"
    R"J(":{"#":"0.a_bool","D":true},"N":"bias_after_scale"}],"I":[{"%":6},{"%":7}],"O":[{"%":8,"TT":{"#":"0.t_dtensor")J"
    R"J(,"D":[{"#":"0.t_f32"},[-1,3],"NCHW",[],0]}}],"OA":[{"AT":{"#":"0.a_array","D":[{"#":"0.a_bool","D":false}]},"N)J"
    R"J(":"stop_gradient"}]},{"#":"1.fetch","A":[{"AT":{"#":"0.a_str","D":"fetch_name_0"},"N":"name"},{"AT":{"#":"0.a_)J"
    R"J(i32","D":0},"N":"col"}],"I":[{"%":8}],"O":[{"%":9,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[-1,3],"NCHW",[)J"
    R"J(],0]}}],"OA":[{"AT":{"#":"0.a_array","D":[{"#":"0.a_bool","D":true}]},"N":"persistable"},{"AT":{"#":"0.a_array)J"
    R"J(","D":[{"#":"0.a_bool","D":false}]},"N":"stop_gradient"}]}]}]}]}})J";

}  // namespace

TEST(PaddleTensorFile, RoundTripsEveryDtypeAndNamesDamage) {
  io::TensorMap ts{{"a", randn({2, 3})}, {"b", arange(0, 5, 1, DType::Int64)}, {"c", ones({}, DType::Bool)},
                   {"d", randn({3}).cast(DType::BFloat16)}, {"e", randn({0, 2}).cast(DType::Float64)}};
  const std::string path = temp_path("t.pdiparams");
  io::save_paddle_params(path, ts);
  std::vector<std::string> names;
  for (auto& [k, t] : ts) names.push_back(k);
  std::reverse(names.begin(), names.end());  // the reader sorts the names itself
  io::TensorMap back = io::load_paddle_params(path, names);
  for (auto& [k, t] : ts) {
    EXPECT_EQ(back.at(k).dtype(), t.dtype()) << k;
    EXPECT_EQ(back.at(k).shape(), t.shape()) << k;
    EXPECT_TRUE(equal_all(back.at(k), t).item<bool>()) << k;
  }
  // Paddle's bytes for a float32 [3] tensor: versions 0, no LoD, TensorDesc {data_type: FP32, dims: 3}.
  const std::string head = io::serialize_paddle_tensor(zeros({3})).substr(0, 24);
  EXPECT_EQ(head, std::string("\0\0\0\0" "\0\0\0\0\0\0\0\0" "\0\0\0\0" "\x04\0\0\0" "\x08\x05\x10\x03", 24));
  const std::string bytes = io::read_file(path, "test");
  write(temp_path("cut.pdiparams"), bytes.substr(0, bytes.size() - 3));
  EXPECT_NE(error_of([&] { io::load_paddle_params(temp_path("cut.pdiparams"), names); }).find("is truncated"),
            std::string::npos);
  EXPECT_NE(error_of([&] { io::load_paddle_params(path, {"a"}); }).find("holds 5 tensors but the program reads 1"),
            std::string::npos);
  std::string bad = bytes;
  bad[21] = 0x7f;  // tensor 0's data type code
  EXPECT_NE(error_of([&] { io::parse_paddle_tensors(bad, "bad"); }).find("data type code 127"), std::string::npos);
}

TEST(PaddleModel, PredictorServesAProgramPaddleWrote) {
  const std::string prefix = temp_path("linear");
  write(prefix + ".json", kLinearReluScale);
  const Tensor w = randn({4, 3}), b = randn({3});
  io::save_paddle_params(prefix + ".pdiparams", {{"linear_0.w_0", w}, {"linear_0.b_0", b}});
  auto predictor = inference::CreatePredictor(inference::Config(prefix + ".json", prefix + ".pdiparams"));
  EXPECT_EQ(predictor->GetInputNames(), (std::vector<std::string>{"x"}));
  EXPECT_EQ(predictor->GetOutputNames(), (std::vector<std::string>{"fetch_name_0"}));
  const Tensor x = randn({5, 4});
  auto in = predictor->GetInputHandle("x");
  in->Reshape({5, 4});
  in->CopyFromCpu(x.data<float>());
  ASSERT_TRUE(predictor->Run());
  std::vector<float> got(15);
  predictor->GetOutputHandle("fetch_name_0")->CopyToCpu(got.data());
  const Tensor want = relu(add(matmul(x, w), b)) * 2.0;
  EXPECT_TRUE(allclose(Tensor::from_vector(got, {5, 3}), want, 1e-5, 1e-6).item<bool>());
}

TEST(PaddleModel, ErrorsNameTheFileAndTheOp) {
  const std::string prefix = temp_path("err");
  io::save_paddle_params(prefix + ".pdiparams", {{"linear_0.w_0", randn({4, 3})}, {"linear_0.b_0", randn({3})}});
  std::string text = kLinearReluScale;
  write(prefix + ".json", text.substr(0, text.size() / 2));
  EXPECT_NE(error_of([&] { jit::load_model(prefix + ".json", prefix + ".pdiparams"); }).find("err.json' is corrupted or truncated"),
            std::string::npos);
  std::string renamed = text;
  renamed.replace(renamed.find("\"1.relu\""), 8, "\"1.frob\"");
  write(prefix + ".json", renamed);
  const std::string e = error_of([&] { jit::load_model(prefix + ".json", prefix + ".pdiparams"); });
  EXPECT_NE(e.find("op pd_op.frob (op 5) has no oar translation"), std::string::npos) << e;
  write(prefix + ".json", text);
  io::save_paddle_params(prefix + ".pdiparams", {{"linear_0.w_0", randn({4, 3})}});
  EXPECT_NE(error_of([&] { jit::load_model(prefix + ".json", prefix + ".pdiparams"); }).find("holds 1 tensors but the program reads 2"),
            std::string::npos);
  io::save_paddle_params(prefix + ".pdiparams", {{"linear_0.w_0", randn({4, 3})}, {"linear_0.b_0", randn({4})}});
  EXPECT_NE(error_of([&] { jit::load_model(prefix + ".json", prefix + ".pdiparams"); }).find("parameter 'linear_0.b_0' is float32[4]"),
            std::string::npos);
  EXPECT_GE(jit::paddle::supported_ops().size(), 60u);
}
