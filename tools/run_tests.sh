#!/usr/bin/env bash
# README command two: set up, build, then run every test (GoogleTest through ctest, then pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup_env.sh
# Real Paddle for the conformance test (tests/python/test_conformance.py skips without it).
stamp=.venv/.conformance-stamp
if [ ! -f "$stamp" ] || ! cmp -s tools/requirements-conformance.txt "$stamp"; then
  if .venv/bin/python -m pip install -q -r tools/requirements-conformance.txt; then
    cp tools/requirements-conformance.txt "$stamp"
  else
    echo "[tests] could not install paddlepaddle: the conformance test will skip"
  fi
fi
echo "== C++ tests (ctest)"
ctest --test-dir build/release --output-on-failure -j2
echo "== Python tests (pytest)"
.venv/bin/python -m pytest -q tests/python
