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
echo "== C++ tests (ctest) [$(date +%T)]"
ctest --test-dir build/release --output-on-failure -j2
echo "== Python tests (pytest) [$(date +%T)]"
.venv/bin/python -m pytest -q tests/python
echo "== Python tests on the custom_cpu device (OAR_TEST_DEVICE: the op tests through the plug-in ABI) [$(date +%T)]"
# (Python layers over ops that reach no kernel the op tests do not, whole-model runs, and tests of
# host behaviour that start processes are left to the host pass: the vision detection ops and the
# extra nn functions are Python compositions of ops, at 2 minutes of this pass for nothing new.)
OAR_TEST_DEVICE=custom_cpu:0 .venv/bin/python -m pytest -q -p no:cacheprovider tests/python -k "not conformance" \
  --ignore=tests/python/test_vision_models_more.py --ignore=tests/python/test_distribution.py \
  --ignore=tests/python/test_distribution_sampling.py --ignore=tests/python/test_distribution_transform.py \
  --ignore=tests/python/test_text_datasets.py --ignore=tests/python/test_audio_datasets.py \
  --ignore=tests/python/test_hub.py --ignore=tests/python/test_onnx_export.py \
  --ignore=tests/python/test_paddle_model_formats.py --ignore=tests/python/test_custom_op.py \
  --ignore=tests/python/test_vision_ops.py --ignore=tests/python/test_vision_ops2.py \
  --ignore=tests/python/test_nn_extra_api.py --ignore=tests/python/test_distributed_launch.py \
  --ignore=tests/python/test_crash_safe_save.py --ignore=tests/python/test_io_workers.py
# Bounded runs of the search for crashes (tools/run_fuzz.sh: libFuzzer on the C++ file readers,
# atheris on the Python loaders; the op fuzzer ran in ctest) and the sanitizer build
# (tools/run_sanitizers.sh: the C++ tests, the op fuzzer and a pytest slice under ASan + UBSan).
# OAR_SKIP_SANITIZERS=1 skips the latter for a quick local run.
echo "== Fuzzing (bounded) [$(date +%T)]"
OAR_FUZZ_RUNS=${OAR_FUZZ_RUNS:-100000} bash tools/run_fuzz.sh 10 0
if [ "${OAR_SKIP_SANITIZERS:-0}" != 1 ]; then
  echo "== Sanitizers (ASan + UBSan) [$(date +%T)]"
  bash tools/run_sanitizers.sh
fi
