// Classifies digit images with the LeNet that the main job trained and exported (oar.jit.save),
// through the C++ inference API alone (no Python):
//
//   build/release/infer_lenet out/lenet/inference out/lenet/samples/*.pgm
//
// Each image is a 28x28 8-bit PGM (P5); its true label is the number after "digit_" in the file
// name. Prints each prediction and the accuracy over the images.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "oar/inference/predictor.h"

namespace {

// A binary PGM of 28x28 pixels, scaled as the training transform did: (p / 255 - 0.5) / 0.5.
std::vector<float> read_pgm(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open image '" + path + "'");
  std::string magic;
  int w = 0, h = 0, maxval = 0;
  f >> magic >> w >> h >> maxval;
  f.get();  // the single whitespace before the pixels
  if (magic != "P5" || w != 28 || h != 28 || maxval != 255)
    throw std::runtime_error("'" + path + "' is not a 28x28 8-bit binary PGM (P5)");
  std::vector<unsigned char> pixels(28 * 28);
  if (!f.read(reinterpret_cast<char*>(pixels.data()), pixels.size()))
    throw std::runtime_error("'" + path + "' is truncated");
  std::vector<float> out(pixels.size());
  for (size_t i = 0; i < pixels.size(); ++i) out[i] = (pixels[i] / 255.0f - 0.5f) / 0.5f;
  return out;
}

int label_of(const std::string& path) {
  const size_t at = path.rfind("digit_");
  return at == std::string::npos ? -1 : std::atoi(path.c_str() + at + 6);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: " << argv[0] << " MODEL_PREFIX IMAGE.pgm...\n";
    return 2;
  }
  try {
    const std::string prefix = argv[1];
    oar::inference::Config config(prefix + ".json", prefix + ".pdiparams");
    config.SetCpuMathLibraryNumThreads(1);
    auto predictor = oar::inference::CreatePredictor(config);
    const std::string input = predictor->GetInputNames().at(0);
    const std::string output = predictor->GetOutputNames().at(0);

    // One batch with every image.
    const int n = argc - 2;
    std::vector<float> batch;
    for (int i = 0; i < n; ++i) {
      std::vector<float> img = read_pgm(argv[i + 2]);
      batch.insert(batch.end(), img.begin(), img.end());
    }
    auto in = predictor->GetInputHandle(input);
    in->Reshape({n, 1, 28, 28});
    in->CopyFromCpu(batch.data());
    predictor->Run();
    auto out = predictor->GetOutputHandle(output);
    const std::vector<int> shape = out->shape();  // [n, 10]
    std::vector<float> logits(static_cast<size_t>(shape[0]) * shape[1]);
    out->CopyToCpu(logits.data());

    int correct = 0, labelled = 0;
    for (int i = 0; i < n; ++i) {
      int best = 0;
      for (int c = 1; c < shape[1]; ++c)
        if (logits[i * shape[1] + c] > logits[i * shape[1] + best]) best = c;
      const int label = label_of(argv[i + 2]);
      if (label >= 0) ++labelled, correct += best == label;
      if (i < 10) std::printf("%s: predicted %d (label %d)\n", argv[i + 2], best, label);
    }
    if (labelled)
      std::printf("C++ predictor: %d of %d images classified correctly (%.2f%%)\n", correct, labelled,
                  100.0 * correct / labelled);
  } catch (const std::exception& e) {
    std::cerr << "infer_lenet: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
