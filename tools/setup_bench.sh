#!/usr/bin/env bash
# Installs the reference frameworks the benchmarks compare against, outside oar's own venv:
# PyTorch from Debian (python3-torch) and Paddle from PyPI (paddlepaddle, CPU build), in
# .venv-bench/, plus onnxruntime for bench_inference.py (Debian's python3 with its system site-packages, so torch is visible there).
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-torch python3-venv
fi
if [ ! -x .venv-bench/bin/python ]; then
  /usr/bin/python3 -m venv --system-site-packages .venv-bench
fi
if ! .venv-bench/bin/python -c "import paddle" 2>/dev/null; then
  .venv-bench/bin/python -m pip install -q paddlepaddle
fi
if ! .venv-bench/bin/python -c "import onnxruntime" 2>/dev/null; then
  .venv-bench/bin/python -m pip install -q onnxruntime
fi
echo "[bench] reference frameworks ready in .venv-bench"
