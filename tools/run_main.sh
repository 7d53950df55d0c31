#!/usr/bin/env bash
# README command one: set up, build, then run the main job: train LeNet on the bundled digits with
# Model.fit, evaluate on the held-out split (>= 97% or the job fails), save, reload, re-evaluate,
# plot the training curves, export the network (out/lenet/inference.json/.pdiparams, Paddle 3's format) and check the
# predictor against eager. Then, without Python, the C++ predictor classifies the exported sample
# images and the C++ example trains a small MLP.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup_env.sh
echo "== Python: examples/train_lenet.py (LeNet on the bundled digits)"
.venv/bin/python examples/train_lenet.py --out out/lenet
echo "== C++: examples/infer_lenet.cc (the exported LeNet through the C++ predictor)"
build/release/infer_lenet out/lenet/inference out/lenet/samples/*.pgm
echo "== C++: examples/train_mlp.cc (the C++ API, no Python)"
build/release/train_mlp
