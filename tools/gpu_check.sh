#!/usr/bin/env bash
# The GPU check of oar, in two halves because the GPU machine has CUDA but none of oar's Debian
# dependencies (oneDNN, SLEEF, LAPACK) and no network:
#   tools/gpu_check.sh pack   here: a portable build (no -march=native) with the CUDA backend for
#                             sm_90 in build/gpu, and a bundle of its binaries and the shared
#                             libraries they need in .gpu_check/bundle.tgz (git-ignored; ~20 MB)
#   tools/gpu_check.sh run    there (carry .gpu_check): unpacks the bundle, runs the CUDA
#                             backend's own test and benchmark beside PyTorch's numbers
#                             (plugins/cuda/tools/gpu_check.sh), then oar's GPU tests through
#                             the op layer (tests/cpp/device_gpu_test.cc) and bench/bench_gpu.cc.
# Output goes to stdout and to $OUT/oar_gpu_check.log when OUT is set. Exit status: nonzero when
# a test fails. OAR_GPU_CHECK_SKIP_PLUGIN=1 skips the plug-in's own test and benchmark (a rerun
# after changes above the plug-in).
set -u -o pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

pack() {
  set -e
  export CCACHE_DIR=${CCACHE_DIR:-$ROOT/.ccache}
  cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DOAR_NATIVE=OFF -DOAR_BUILD_PYTHON=OFF \
    -DOAR_WITH_CUDA=ON -DOAR_CUDA_ARCHS=90 >/dev/null
  cmake --build build/gpu --target oar oar_cuda oar_tests bench_gpu oar_cuda_test oar_cuda_bench
  rm -rf .gpu_check && mkdir -p .gpu_check/bundle/lib
  local bins="build/gpu/oar_tests build/gpu/bench_gpu build/gpu/plugins/cuda/oar_cuda_test build/gpu/plugins/cuda/oar_cuda_bench"
  cp $bins .gpu_check/bundle/
  cp build/gpu/liboar.so build/gpu/liboar_cuda.so .gpu_check/bundle/lib/
  # Every non-CUDA, non-glibc library they load (the GPU machine's CUDA 13 serves cudart/cuBLASLt).
  for f in $bins build/gpu/liboar.so build/gpu/liboar_cuda.so; do ldd "$f"; done | awk '/=> \//{print $3}' |
    sort -u | grep -v -E 'libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|ld-linux|libcuda|libcublas|libcudart|libstdc\+\+|libgcc_s' |
    while read -r lib; do cp -L "$lib" .gpu_check/bundle/lib/; done
  strip --strip-unneeded .gpu_check/bundle/lib/*.so* .gpu_check/bundle/oar_* .gpu_check/bundle/bench_gpu 2>/dev/null || true
  tar -C .gpu_check -czf .gpu_check/bundle.tgz bundle && rm -rf .gpu_check/bundle
  ls -la .gpu_check/bundle.tgz
}

run() {
  local dir=/tmp/oar_gpu status=0
  rm -rf "$dir" && mkdir -p "$dir" && tar -C "$dir" -xzf .gpu_check/bundle.tgz
  local b=$dir/bundle
  # The plug-in next to the test binaries too, where plugins/cuda/tools/gpu_check.sh looks.
  cp "$b/lib/liboar_cuda.so" "$b/"
  export LD_LIBRARY_PATH="$b/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  if [[ "${OAR_GPU_CHECK_SKIP_PLUGIN:-0}" != "1" ]]; then
    bash plugins/cuda/tools/gpu_check.sh "$b" || status=1
  fi
  echo; echo "==== oar GPU tests through the op layer ($(date +%T))"
  timeout 600 "$b/oar_tests" --gtest_filter='GpuTest.*' || status=1
  echo; echo "==== bench/bench_gpu.cc: oar's op layer on the GPU ($(date +%T))"
  timeout 300 "$b/bench_gpu" || status=1
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
