#!/usr/bin/env bash
# The C++ tests, the op fuzzer and a slice of pytest under AddressSanitizer + UndefinedBehaviorSanitizer
# (or ThreadSanitizer with OAR_SANITIZE=thread), after tools/setup_env.sh has made the venv.
# A separate build tree (build/<sanitizer>) with the Python extension; Python itself is not
# instrumented, so the runtime is preloaded and its leak report is off for the pytest slice (the
# interpreter's own allocations at exit are not ours); the C++ tests keep leak checking.
#   tools/run_sanitizers.sh [pytest args...]     (default slice: see SLICE below)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SAN=${OAR_SANITIZE:-address,undefined}
BUILD=build/$(echo "$SAN" | tr ',' '-')
export CCACHE_DIR=${CCACHE_DIR:-$ROOT/.ccache} CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT}

if [ ! -f "$BUILD/build.ninja" ]; then
  # -O1: sanitized code stays fast enough to test while compiling much faster than -O2.
  cmake -S . -B "$BUILD" -GNinja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
    -DOAR_SANITIZE="$SAN" -DOAR_BUILD_TESTS=ON -DOAR_BUILD_EXAMPLES=OFF -DOAR_BUILD_PYTHON=ON \
    -DPython_EXECUTABLE="$ROOT/.venv/bin/python" >/dev/null
fi
echo "[sanitizers] building $BUILD ($SAN)"
cmake --build "$BUILD" -j"$(nproc)" | grep -vE '^\[[0-9]+/[0-9]+\] ' || true
test -x "$BUILD/oar_tests"

case "$SAN" in
  *address*) RUNTIME=$(g++ -print-file-name=libasan.so)
             export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1}
             export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
             PY_OPTIONS="detect_leaks=0:abort_on_error=1" ;;
  *thread*)  RUNTIME=$(g++ -print-file-name=libtsan.so)
             export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
             PY_OPTIONS="" ;;
  *)         RUNTIME="" ; PY_OPTIONS="" ;;
esac
# LSan's own suppressions for leaks that are not ours (third-party one-time initialisation).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/tools/lsan.supp:print_suppressions=0}

echo "[sanitizers] C++ tests"
# OpenMP's idle threads and oneDNN's caches live for the process: their memory is not a leak.
ctest --test-dir "$BUILD" --output-on-failure -j"$(nproc)" -E op_fuzz_short
echo "[sanitizers] op fuzzer (every op, edge arguments)"
# Sanitizers reserve terabytes of address space: the fuzzer's cap on it must be off here.
# and huge requests fail as they would on a full machine (allocator_may_return_null).
ASAN_OPTIONS="${ASAN_OPTIONS:-}:allocator_may_return_null=1:max_allocation_size_mb=4096" \
  "$BUILD/oar_op_fuzz" --cases "${OAR_FUZZ_CASES:-6}" --mem-gb 0 --timeout 120

echo "[sanitizers] pytest slice"
# The Python package from the source tree with the sanitized libraries beside it.
STAGE="$BUILD/python"
rm -rf "$STAGE" && mkdir -p "$STAGE"
cp -r python/oar "$STAGE/"
cp "$BUILD"/liboar.so "$BUILD"/_C.*.so "$STAGE/oar/"
SLICE=(tests/python/test_elementwise.py tests/python/test_reduce.py tests/python/test_shape_index.py
       tests/python/test_autograd.py tests/python/test_conv.py tests/python/test_norm.py
       tests/python/test_static.py tests/python/test_jit_inference.py tests/python/test_io.py
       tests/python/test_safe_load.py tests/python/test_robustness.py)
[ $# -gt 0 ] && SLICE=("$@")
env ${RUNTIME:+LD_PRELOAD=$RUNTIME} ${PY_OPTIONS:+ASAN_OPTIONS=$PY_OPTIONS} PYTHONPATH="$ROOT/$STAGE" \
  OAR_UNDER_SANITIZER=1 .venv/bin/python -m pytest -q -x -p no:cacheprovider "${SLICE[@]}"
