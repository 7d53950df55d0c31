#!/usr/bin/env bash
# Installs the reference frameworks the benchmarks compare against, outside oar's own venv, in
# .venv-bench/: the current PyTorch (MKL and oneDNN inside), Paddle (CPU build) and onnxruntime,
# all from PyPI. Debian's python3-torch (1.13) is far slower than a current torch: a ratio
# against it proves nothing. PyPI's torch pulls CUDA runtime wheels (a few GB), hence its own venv.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv-bench/bin/python ]; then
  /usr/bin/python3 -m venv .venv-bench
fi
for pkg in torch paddle onnxruntime numpy scipy; do
  if ! .venv-bench/bin/python -c "import $pkg" 2>/dev/null; then
    case $pkg in paddle) name=paddlepaddle ;; *) name=$pkg ;; esac
    .venv-bench/bin/python -m pip install -q "$name"
  fi
done
.venv-bench/bin/python -c "import torch, paddle; print('[bench] torch', torch.__version__, '/ paddle', paddle.__version__, 'ready in .venv-bench')"
