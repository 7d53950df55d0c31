#!/usr/bin/env bash
# README command two: set up, build, then run every test (GoogleTest through ctest, then pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup_env.sh
echo "== C++ tests (ctest)"
ctest --test-dir build/release --output-on-failure -j2
echo "== Python tests (pytest)"
.venv/bin/python -m pytest -q tests/python
