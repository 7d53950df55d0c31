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
export CCACHE_DIR=${CCACHE_DIR:-$ROOT/.ccache} CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT}

# ASan + UBSan build with clang: 2.5x faster than GCC at -O0 with instrumentation (reduce.cc: 14 s
# vs 35 s), which is most of this step's CI time. Its OpenMP runtime (libomp) and sanitizer
# runtime come from Debian's packages, installed here when missing. OAR_SANITIZE_CXX=g++ (or
# thread, below) builds with GCC.
COMPILER=${OAR_SANITIZE_CXX:-clang++}
case "$SAN" in *thread*) COMPILER=${OAR_SANITIZE_CXX:-g++} ;; esac
if [ "$COMPILER" = clang++ ]; then
  probe=$(mktemp -d)
  echo 'int main() { return 0; }' > "$probe/p.cc"
  if ! clang++ -fopenmp -fsanitize=address,undefined -shared-libsan "$probe/p.cc" -o "$probe/p" 2>/dev/null; then
    echo "[sanitizers] installing clang, its sanitizer runtimes and libomp"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    V=$(clang++ --version 2>/dev/null | sed -n 's/.*version \([0-9]*\).*/\1/p')
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang libclang-rt-dev "libomp-${V:-14}-dev" >/dev/null 2>&1 ||
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang "libclang-rt-${V:-14}-dev" "libomp-${V:-14}-dev" >/dev/null
  fi
  rm -rf "$probe"
fi
BUILD=build/$(echo "$SAN" | tr ',' '-')$([ "$COMPILER" = clang++ ] && echo -clang)

if [ ! -f "$BUILD/build.ninja" ]; then
  # -O0 by default: a third of -O1's compile time, and CI builds this tree.
  # OAR_SANITIZE_OPT=-O1 for a slower build whose tests run faster.
  CC_OF_CXX=$([ "$COMPILER" = clang++ ] && echo clang || echo gcc)
  cmake -S . -B "$BUILD" -GNinja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="${OAR_SANITIZE_OPT:--O0} -g" \
    -DCMAKE_CXX_COMPILER="$COMPILER" -DCMAKE_C_COMPILER="$CC_OF_CXX" \
    -DOAR_SANITIZE="$SAN" -DOAR_BUILD_TESTS=ON -DOAR_BUILD_EXAMPLES=OFF -DOAR_BUILD_PYTHON=ON -DOAR_WITH_CUDA=OFF \
    -DPython_EXECUTABLE="$ROOT/.venv/bin/python" >/dev/null
fi
echo "[sanitizers] building $BUILD ($SAN)"
cmake --build "$BUILD" -j"$(nproc)" | grep -vE '^\[[0-9]+/[0-9]+\] ' || true
test -x "$BUILD/oar_tests"

case "$SAN" in
  # libstdc++ preloaded too: ASan's __cxa_throw interceptor must find the real one at start-up
  # (python itself does not link libstdc++), or the first C++ exception aborts.
  *address*) ASAN_RT=$([ "$COMPILER" = clang++ ] && clang++ -print-file-name=libclang_rt.asan-x86_64.so ||
                       g++ -print-file-name=libasan.so)
             RUNTIME="$ASAN_RT:$(g++ -print-file-name=libstdc++.so.6)"
             export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1}
             export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
             # alloc_dealloc_mismatch=0 only here: Paddle's library, which some tests import,
             # frees with delete what it allocated with new[] (the C++ tests keep the check).
             PY_OPTIONS="detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:alloc_dealloc_mismatch=0" ;;
  *thread*)  RUNTIME="$(g++ -print-file-name=libtsan.so):$(g++ -print-file-name=libstdc++.so.6)"
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
# (The type stubs come from the release build: a sanitizer build does not import its module to
# write them.)
cp "$BUILD"/liboar.so "$BUILD"/_C.*.so build/release/_C.pyi "$STAGE/oar/"
# The C++ headers the installed package carries (oar.sysconfig.get_include()), from .venv's install.
SITE=$(.venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
[ -d "$SITE/oar/include" ] && cp -r "$SITE/oar/include" "$STAGE/oar/"
# pytest captures the process's stderr, where a report that ends it would be lost: reports go to
# files, printed when the run fails.
LOGS="$ROOT/$BUILD/sanitizer-logs"
rm -rf "$LOGS" && mkdir -p "$LOGS"
# Every test but those comparing with real Paddle (-k): a Paddle subprocess inherits the preloaded
# runtime, under which Paddle cannot load its MKL library.
# Also left out, to keep CI within its budget: the tests that mostly start, signal and kill
# processes (the launcher, kill-during-save; their C++ store and collectives run in
# test_distributed_collective) and whole training runs (LeNet; their ops run in the op tests).
# Left out (they run in the host pass): process orchestration, whole-model runs, Python
# layers over ops the slice already covers (distributions, datasets, hub) that take minutes
# unoptimised without reaching new C++ code, the files that load onnxruntime or Paddle at
# import (their C++ readers run under the sanitizers in ctest and the fuzzers), and the custom-op
# builds (their registry and autograd run in ctest's CustomOp tests).
# Left out as well: the tests that fork a process that has threads (DataLoader workers):
# GCC 12's ASan allocator takes no lock around fork, so a child can inherit it held by another
# thread and hang (seen once: a custom_cpu DataLoader worker stuck in the allocator's mutex).
SLICE=(tests/python -k "not paddle and not conformance and not lenet and not loader_place"
       --ignore=tests/python/test_distributed_launch.py --ignore=tests/python/test_crash_safe_save.py
       --ignore=tests/python/test_vision_models_more.py --ignore=tests/python/test_distribution.py
       --ignore=tests/python/test_distribution_sampling.py --ignore=tests/python/test_distribution_transform.py
       --ignore=tests/python/test_text_datasets.py --ignore=tests/python/test_audio_datasets.py
       --ignore=tests/python/test_hub.py --ignore=tests/python/test_onnx_export.py
       --ignore=tests/python/test_paddle_model_formats.py --ignore=tests/python/test_custom_op.py
       --ignore=tests/python/test_io_workers.py
       # Python over ops the rest of the slice runs already (docstring examples, API surfaces),
       # and multi-process runs, slow under ASan for no C++ path of their own:
       --ignore=tests/python/test_docstrings.py --ignore=tests/python/test_auto_parallel.py
       --ignore=tests/python/test_distributed_rpc.py --ignore=tests/python/test_distributed_misc.py
       --ignore=tests/python/test_compat_api.py --ignore=tests/python/test_vision_datasets_extra.py
       --ignore=tests/python/test_vision_ops.py --ignore=tests/python/test_vision_ops2.py
       --ignore=tests/python/test_nn_extra_api.py --ignore=tests/python/test_distributed_extra2.py)
[ $# -gt 0 ] && SLICE=("$@")
if ! env ${RUNTIME:+LD_PRELOAD=$RUNTIME} ${PY_OPTIONS:+ASAN_OPTIONS=$PY_OPTIONS:log_path=$LOGS/asan} \
    UBSAN_OPTIONS="${UBSAN_OPTIONS:-}:log_path=$LOGS/ubsan" TSAN_OPTIONS="${TSAN_OPTIONS:-}:log_path=$LOGS/tsan" \
    PYTHONPATH="$ROOT/$STAGE" .venv/bin/python -m pytest -q -x -p no:cacheprovider "${SLICE[@]}"; then
  echo "[sanitizers] the pytest slice failed; sanitizer reports:"
  cat "$LOGS"/* 2>/dev/null | head -80
  exit 1
fi
