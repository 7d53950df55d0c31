#!/usr/bin/env bash
# The GPU check of oar, in two halves because the GPU machine has CUDA but none of oar's Debian
# dependencies (oneDNN, SLEEF, LAPACK), another Python (3.12) and no network:
#   tools/gpu_check.sh pack   here: the README's build (build/release, portable: OAR_NATIVE=OFF)
#                             with the CUDA backend for sm_90, and a bundle of its binaries, the
#                             shared libraries they need, and what the Python extension is compiled
#                             from (generated sources, nanobind) in .gpu_check/bundle.tgz
#                             (git-ignored; ~25 MB)
#   tools/gpu_check.sh run    there (carry .gpu_check): unpacks the bundle; compiles oar._C for
#                             that machine's python3 in the background; runs oar's GPU tests
#                             through the op layer (tests/cpp/device_gpu_test.cc) and
#                             bench/bench_gpu.cc; the Python suite with gpu:0 as the expected
#                             place (OAR_TEST_DEVICE, see tests/python/conftest.py), whose skips
#                             list the kernels CUDA lacks; bench/bench_gpu.py (training steps
#                             beside PyTorch there); then the CUDA backend's own test and
#                             benchmark beside PyTorch's numbers (plugins/cuda/tools/gpu_check.sh).
# Output goes to stdout and to $OUT/oar_gpu_check.log (the pytest log to $OUT/pytest_gpu.log) when
# OUT is set. Exit status: nonzero when a test fails. OAR_GPU_CHECK_SKIP_PLUGIN=1 skips the
# plug-in's own test and benchmark; OAR_GPU_CHECK_PYTEST_ARGS replaces the pytest selection
# (default: the whole suite but conformance and distributed, which are host matters).
set -u -o pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

pack() {
  set -e
  export CCACHE_DIR=${CCACHE_DIR:-$ROOT/.ccache}
  local B=build/release
  [[ -f $B/CMakeCache.txt ]] || { echo "run tools/run_main.sh first (it configures $B)" >&2; exit 1; }
  grep -q '^OAR_NATIVE:BOOL=OFF' $B/CMakeCache.txt || { echo "$B is built with OAR_NATIVE=ON: not portable" >&2; exit 1; }
  cmake -S . -B $B -DOAR_WITH_CUDA=ON -DOAR_CUDA_ARCHS=90 >/dev/null
  cmake --build $B --target oar oar_cuda oar_tests bench_gpu oar_cuda_test oar_cuda_bench \
    oar_rnn_grad_check oar_norm_grad_check
  rm -rf .gpu_check && mkdir -p .gpu_check/bundle/lib
  local bins="$B/oar_tests $B/bench_gpu $B/plugins/cuda/oar_cuda_test $B/plugins/cuda/oar_cuda_bench
    $B/oar_rnn_grad_check $B/oar_norm_grad_check"
  cp $bins .gpu_check/bundle/
  cp $B/liboar.so $B/liboar_cuda.so $B/liboar_custom_cpu.so .gpu_check/bundle/lib/
  # What the package install adds beside the extension (the tests check them): stubs, headers.
  mkdir -p .gpu_check/bundle/package
  cp $B/_C.pyi .gpu_check/bundle/package/
  cp -r .venv/lib/python3*/site-packages/oar/include .gpu_check/bundle/package/include
  # oar._C is compiled there, for its Python: the generated sources and headers, and nanobind.
  cp -r $B/gen .gpu_check/bundle/gen
  cp -r "$(.venv/bin/python -c 'import nanobind, os; print(os.path.dirname(nanobind.__file__))')" .gpu_check/bundle/nanobind
  # Every non-CUDA, non-glibc library they load (the GPU machine's CUDA 13 serves cudart/cuBLASLt).
  for f in $bins $B/liboar.so $B/liboar_cuda.so; do ldd "$f"; done | awk '/=> \//{print $3}' |
    sort -u | grep -v -E 'libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|ld-linux|libcuda|libcublas|libcudart|libstdc\+\+|libgcc_s' |
    while read -r lib; do cp -L "$lib" .gpu_check/bundle/lib/; done
  strip --strip-unneeded .gpu_check/bundle/lib/*.so* .gpu_check/bundle/oar_* .gpu_check/bundle/bench_gpu 2>/dev/null || true
  tar -C .gpu_check -czf .gpu_check/bundle.tgz bundle && rm -rf .gpu_check/bundle
  ls -la .gpu_check/bundle.tgz
}

# oar._C for this machine's python3, as CMake's nanobind_add_module builds it (without Gloo: the
# distributed tests are not part of the GPU run), into $1/oar beside liboar.so and the plug-in.
build_python() {
  local b=$1 site=$2 py=${OAR_GPU_CHECK_PYTHON:-python3}
  local inc suffix
  inc=$($py -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  suffix=$($py -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
  mkdir -p "$site/obj" && cp -r python/oar "$site/" && cp -r "$b"/package/. "$site/oar/"
  cp "$b"/lib/liboar.so "$b"/lib/liboar_cuda.so "$b"/lib/liboar_custom_cpu.so "$site/oar/"
  local flags="-O1 -DNDEBUG -fPIC -fvisibility=hidden -fno-math-errno -march=x86-64-v3 -std=gnu++20 -w"
  flags+=' -DOAR_BUILD_TARGET=\"x86-64-v3\"'
  flags+=" -I$inc -I$b/nanobind/include -I$b/nanobind/ext/robin_map/include"
  local sources=("$b/nanobind/src/nb_combined.cpp" python/src/*.cc "$b"/gen/py/*.cc)
  printf '%s\n' "${sources[@]}" | xargs -P "${OAR_GPU_CHECK_JOBS:-12}" -I{} sh -c \
    'g++ '"$flags"' -DNB_COMPACT_ASSERTIONS -fopenmp -Ipython/src -I. -I'"$b"'/gen -c {} -o '"$site"'/obj/$(basename {}).o' || return 1
  g++ -shared -Wl,--gc-sections -o "$site/oar/_C$suffix" "$site"/obj/*.o -L"$site/oar" -loar -fopenmp \
    -Wl,-rpath,'$ORIGIN' || return 1
  echo "built $site/oar/_C$suffix"
}

# Most telling first (a run cut short by its time limit keeps what ran): the op layer's C++ GPU
# tests, the Python suite on gpu:0, the training benchmark, then the plug-in's own ABI test and
# benchmark beside PyTorch's numbers.
run() {
  local dir=/tmp/oar_gpu status=0
  rm -rf "$dir" && mkdir -p "$dir" && tar -C "$dir" -xzf .gpu_check/bundle.tgz
  local b=$dir/bundle site=$dir/site log=${OUT:-$dir}
  # The plug-in next to the test binaries too, where plugins/cuda/tools/gpu_check.sh looks.
  cp "$b/lib/liboar_cuda.so" "$b/"
  export LD_LIBRARY_PATH="$b/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "==== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
  # Compiling the extension overlaps the C++ checks.
  (build_python "$b" "$site" >"$dir/pybuild.log" 2>&1; echo $? >"$dir/pybuild.rc") &
  local builder=$!
  echo; echo "==== oar GPU tests through the op layer ($(date +%T))"
  timeout 300 "$b/oar_tests" --gtest_filter='GpuTest.*' || status=1
  echo; echo "==== bench/bench_gpu.cc: oar's op layer on the GPU ($(date +%T))"
  timeout 120 "$b/bench_gpu" || status=1
  echo; echo "==== the CUDA plug-in against oar's host kernels (tests/plugin_checks) ($(date +%T))"
  for check in rnn_grad norm_grad; do
    timeout 120 "$b/oar_${check}_check" "$b/liboar_cuda.so" gpu 2>&1 | tail -5 || status=1
  done
  echo; echo "==== oar._C for $(python3 --version) ($(date +%T))"
  wait $builder
  tail -5 "$dir/pybuild.log"
  if [[ "$(cat "$dir/pybuild.rc")" != 0 ]]; then
    echo "PYTHON BUILD FAILED"; head -60 "$dir/pybuild.log"; status=1
  else
    echo; echo "==== pytest with OAR_TEST_DEVICE=gpu:0 ($(date +%T))"
    # Single quotes: the double quotes must survive into eval (an unquoted default loses them).
    local args=${OAR_GPU_CHECK_PYTEST_ARGS:-'-k "not conformance and not distributed" .'}
    (cd tests/python && export OAR_TEST_DEVICE=gpu:0 PYTHONPATH="$site" PYTHONUNBUFFERED=1 &&
      eval "timeout ${OAR_GPU_CHECK_PYTEST_TIMEOUT:-300} python3 -m pytest -q -p no:cacheprovider \
        -n ${OAR_GPU_CHECK_JOBS:-12} -rfEs --timeout 120 $args" >"$log/pytest_gpu.log" 2>&1)
    local rc=$?
    # The failures in full are in the log; here the summary and the missing kernels, counted.
    grep -E '^(FAILED|ERROR)' "$log/pytest_gpu.log" | head -80
    grep -oE 'has no kernel for [A-Za-z0-9_ ()]+' "$log/pytest_gpu.log" | sort | uniq -c | sort -rn | head -60
    tail -3 "$log/pytest_gpu.log"
    [[ $rc == 0 ]] || status=1
    echo; echo "==== bench/bench_gpu.py: training steps beside PyTorch ($(date +%T))"
    PYTHONPATH="$site" PYTHONUNBUFFERED=1 timeout "${OAR_GPU_CHECK_BENCH_TIMEOUT:-240}" python3 bench/bench_gpu.py ||
      echo "BENCH FAILED (exit $?)"
  fi
  if [[ "${OAR_GPU_CHECK_SKIP_PLUGIN:-0}" != "1" ]]; then
    bash plugins/cuda/tools/gpu_check.sh "$b" || status=1
  fi
  echo; echo "==== done: status $status"
  return $status
}

case "${1:-}" in
  pack) pack ;;
  run)
    if [[ -n "${OUT:-}" ]]; then
      mkdir -p "$OUT"
      run 2>&1 | tee "$OUT/oar_gpu_check.log"
      exit "${PIPESTATUS[0]}"
    fi
    run ;;
  *) echo "usage: tools/gpu_check.sh pack|run" >&2; exit 2 ;;
esac
