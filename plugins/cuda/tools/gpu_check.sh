#!/usr/bin/env bash
# GPU check of oar's CUDA backend, for a machine with an NVIDIA GPU, CUDA 13, cmake and ninja
# (no network needed):
#   plugins/cuda/tools/gpu_check.sh [DIR]
# DIR: a folder holding prebuilt liboar_cuda.so, oar_cuda_test and oar_cuda_bench. Without it the
# plug-in is configured and built standalone from plugins/cuda (build folder $OAR_CUDA_BUILD_DIR,
# default /tmp/oar_cuda_build). Then: nvidia-smi, the ABI test, the benchmark, and, where
# `import torch` works, PyTorch's numbers for the same bf16 8192^3 GEMM and small-add launch
# cost, so the ratio shows in one log. Everything goes to stdout and to $OUT/gpu_check.log when
# OUT is set. OAR_CUDA_SANITIZE=1 also runs the test under compute-sanitizer (memcheck);
# OAR_CUDA_TEST_TIMEOUT / OAR_CUDA_BENCH_TIMEOUT (seconds) bound the two programs.
# Convolutions: the test runs every conv case twice, through cuDNN (dlopen'ed: $OAR_CUDNN_PATH,
# the loader path, else PyTorch's wheel copy) and with OAR_CUDA_DISABLE_CUDNN=1 (im2col + GEMM);
# the benchmark times both side by side and runs with OAR_CUDA_VERBOSE=1, so the log shows
# whether cuDNN loaded and which algorithm each shape got.
# Exit status: nonzero when the build or the test fails.
set -u -o pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
export PATH="/usr/local/cuda/bin:$PATH"
# Prebuilt binaries carry the build machine's CUDA runpath; let the standard locations resolve too.
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64:/usr/local/cuda/lib"
section() { echo; echo "==== $* ($(date +%T))"; }

main() {
status=0
section "nvidia-smi"
nvidia-smi || echo "nvidia-smi failed"

if [[ $# -ge 1 ]]; then
  bin="$(cd "$1" && pwd)"
  section "using prebuilt binaries in $bin"
else
  bin="${OAR_CUDA_BUILD_DIR:-/tmp/oar_cuda_build}"
  section "building plugins/cuda standalone into $bin"
  nvcc --version | tail -2
  if ! cmake -S "$repo/plugins/cuda" -B "$bin" -G Ninja -DCMAKE_BUILD_TYPE=Release ||
     ! cmake --build "$bin" -j "$(nproc)"; then
    echo "BUILD FAILED"
    return 1
  fi
fi
ls -la "$bin"/liboar_cuda.so "$bin"/oar_cuda_test "$bin"/oar_cuda_bench || return 1

section "oar_cuda_test"
timeout "${OAR_CUDA_TEST_TIMEOUT:-900}" "$bin/oar_cuda_test" "$bin/liboar_cuda.so" || { echo "TEST FAILED (exit $?)"; status=1; }

if [[ "${OAR_CUDA_SANITIZE:-0}" == "1" ]] && command -v compute-sanitizer >/dev/null; then
  section "oar_cuda_test under compute-sanitizer memcheck"
  timeout 1800 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 3 \
    "$bin/oar_cuda_test" "$bin/liboar_cuda.so" | tail -40 || { echo "SANITIZER FAILED"; status=1; }
fi

section "oar_cuda_bench"
OAR_CUDA_VERBOSE=1 timeout "${OAR_CUDA_BENCH_TIMEOUT:-600}" "$bin/oar_cuda_bench" "$bin/liboar_cuda.so" || { echo "BENCH FAILED (exit $?)"; }

if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  section "PyTorch reference (same shapes)"
  timeout 300 python3 - <<'PY'
import time, torch
print("torch", torch.__version__, "on", torch.cuda.get_device_name(0))
def gemm(dtype, n):
    a = torch.rand(n, n, device="cuda", dtype=dtype) * 2 - 1
    b = torch.rand(n, n, device="cuda", dtype=dtype) * 2 - 1
    for _ in range(3): a @ b
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(10): a @ b
    e.record(); e.synchronize()
    ms = s.elapsed_time(e) / 10
    print(f"| torch matmul {str(dtype):15s} {n}^3 | {ms:9.3f} ms | {2*n**3/(ms*1e-3)/1e12:8.1f} TFLOP/s |")
gemm(torch.bfloat16, 8192)
gemm(torch.float16, 4096)
gemm(torch.bfloat16, 4096)
torch.backends.cuda.matmul.allow_tf32 = False
gemm(torch.float32, 4096)
def launch(name, fn, few=500, many=10000):  # as oar_cuda_bench: host cost, then throughput
    for _ in range(100): fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(few): fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    for _ in range(many): fn()
    torch.cuda.synchronize()
    t3 = time.perf_counter()
    print(f"| torch {name:30s} | {(t1-t0)/few*1e6:7.2f} us/call host | {(t3-t2)/many*1e6:7.2f} us/call throughput |")
x, y, z = (torch.rand(1000, device="cuda") for _ in range(3))
launch("add f32 1000 (out=)", lambda: torch.add(x, y, out=z))
launch("add f32 1000 (new tensor)", lambda: x + y)
launch("sum f32 1000 all", lambda: x.sum())
m = torch.rand(64, 64, device="cuda")
launch("matmul f32 64^3", lambda: m @ m)
big = torch.rand(1 << 26, device="cuda")
big2 = torch.rand(1 << 26, device="cuda")
out = torch.empty_like(big)
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
mt = torch.rand(8192, 8192, device="cuda").t()
mo = torch.empty(8192, 8192, device="cuda")
for name, fn, nbytes in [("add f32 64M", lambda: torch.add(big, big2, out=out), 3 * 4 * (1 << 26)),
                         ("copy_ f32 transposed 8192^2", lambda: mo.copy_(mt), 2 * 4 * (1 << 26)),
                         ("sum f32 64M all", lambda: big.sum(), 4 * (1 << 26))]:
    for _ in range(3): fn()
    s.record()
    for _ in range(10): fn()
    e.record(); e.synchronize()
    ms = s.elapsed_time(e) / 10
    print(f"| torch {name:25s} | {ms:9.3f} ms | {nbytes/(ms*1e-3)/1e9:8.0f} GB/s |")
# Convolutions as oar_cuda_bench's bench_conv (cuDNN through PyTorch, no TF32, batch 32).
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = False
for dtype in (torch.float32, torch.bfloat16):
    for name, c, h, m, k, st, cl in [("conv 3x3 64->64 56^2", 64, 56, 64, 3, 1, False),
                                     ("conv 3x3 64->64 56^2 nhwc", 64, 56, 64, 3, 1, True),
                                     ("conv 3x3 256->256 14^2 s2", 256, 28, 256, 3, 2, False),
                                     ("conv 1x1 256->64 56^2", 256, 56, 64, 1, 1, False),
                                     ("conv 7x7 3->64 224^2 s2", 3, 224, 64, 7, 2, False)]:
        fmt = torch.channels_last if cl else torch.contiguous_format
        x = torch.rand(32, c, h, h, device="cuda", dtype=dtype).to(memory_format=fmt)
        w = torch.rand(m, c, k, k, device="cuda", dtype=dtype).to(memory_format=fmt)
        b = torch.rand(m, device="cuda", dtype=dtype)
        y = torch.nn.functional.conv2d(x, w, b, st, k // 2)
        dy = torch.rand_like(y)
        parts = [("fwd", lambda: torch.nn.functional.conv2d(x, w, b, st, k // 2)),
                 ("dgrad", lambda: torch.ops.aten.convolution_backward(dy, x, w, None, [st, st], [k // 2] * 2, [1, 1], False, [0, 0], 1, [True, False, False])),
                 ("wgrad", lambda: torch.ops.aten.convolution_backward(dy, x, w, None, [st, st], [k // 2] * 2, [1, 1], False, [0, 0], 1, [False, True, False]))]
        for part, fn in parts:
            for _ in range(3): fn()
            s.record()
            for _ in range(10): fn()
            e.record(); e.synchronize()
            ms = s.elapsed_time(e) / 10
            print(f"| torch {name:28s} {str(dtype):15s} {part:5s} | {ms:8.3f} ms |")
PY
else
  section "PyTorch not available: no reference numbers"
fi

section "done: status $status"
return $status
}

if [[ -n "${OUT:-}" ]]; then
  mkdir -p "$OUT"
  main "$@" 2>&1 | tee "$OUT/gpu_check.log"
  exit "${PIPESTATUS[0]}"
fi
main "$@"
