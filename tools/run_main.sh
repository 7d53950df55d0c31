#!/usr/bin/env bash
# README command one: set up, build, then run the main job. Until the training stack lands
# this trains a small MLP on synthetic data from Python and from C++ and prints the loss falling.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup_env.sh
echo "== Python: examples/train_mlp.py"
.venv/bin/python examples/train_mlp.py
echo "== C++: examples/train_mlp.cc"
build/release/train_mlp
