#!/usr/bin/env bash
# Fuzzing with real engines, after tools/setup_env.sh has built build/release:
#   - libFuzzer (clang, coverage-guided, with AddressSanitizer + UBSan) on the C++ file readers:
#     tests/fuzz/fuzz_safetensors.cc (.pdiparams) and tests/fuzz/fuzz_program.cc (.pdmodel);
#   - the registry-driven op fuzzer (tests/fuzz/op_fuzz.cc, every op with edge arguments);
#   - atheris (coverage-guided Python) on oar.load and jit.load (tests/fuzz/fuzz_load.py).
# Usage: tools/run_fuzz.sh [SECONDS_PER_TARGET] [OP_CASES]   (defaults: 20 s, 12 cases per op; 0 skips)
#        OAR_FUZZ_RUNS=N tools/run_fuzz.sh ...                  (N executions per target instead)
#        OAR_ATHERIS_SECONDS=S: the Python target's own time budget
# Crashes are saved under build/fuzz/crashes_<target>/ as reproducers; copy each into
# tests/fuzz/regressions/<target>/ once fixed, so that every later run replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_PER_TARGET=${1:-20}
OP_CASES=${2:-12}
BUILD=build/release
OUT=build/fuzz
mkdir -p "$OUT"

if ! command -v clang++ >/dev/null || ! compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null; then
  echo "[fuzz] installing clang and libFuzzer"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang libclang-rt-dev >/dev/null 2>&1 ||
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang "libclang-rt-$(clang++ --version | sed -n 's/.*version \([0-9]*\).*/\1/p')-dev"
fi

# The readers are compiled into the harness with coverage instrumentation (their definitions take
# precedence over liboar's); everything else comes from the release liboar.so.
CXX="ccache clang++"
command -v ccache >/dev/null || CXX=clang++
export CCACHE_DIR=${CCACHE_DIR:-$ROOT/.ccache} CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT}
FLAGS="-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I$ROOT -I$BUILD/gen"
build_target() {  # name, sources...
  local name=$1; shift
  $CXX $FLAGS "$@" -o "$OUT/$name" -L"$BUILD" -loar -Wl,-rpath,"$ROOT/$BUILD"
}
echo "[fuzz] building the libFuzzer targets"
build_target fuzz_safetensors tests/fuzz/fuzz_safetensors.cc oar/io/safetensors.cc
build_target fuzz_program tests/fuzz/fuzz_program.cc oar/ir/parser.cc
build_target fuzz_paddle_model tests/fuzz/fuzz_paddle_model.cc oar/jit/paddle_pir.cc oar/jit/paddle_import.cc \
  oar/jit/paddle_program_desc.cc oar/io/paddle_tensor_file.cc oar/io/protobuf_wire.cc

# Seeds: the files of a small saved model (a valid program and parameter file to mutate).
if [ ! -f "$OUT/seeds/model.pdmodel" ]; then
  mkdir -p "$OUT/seeds"
  .venv/bin/python - "$OUT/seeds" <<'EOF'
import sys
import oar
net = oar.nn.Sequential(oar.nn.Conv2D(1, 2, 3), oar.nn.ReLU(), oar.nn.Flatten(), oar.nn.Linear(8, 3),
                        oar.nn.Softmax())
net.eval()
oar.jit.save(net, sys.argv[1] + "/model", input_spec=[oar.static.InputSpec([None, 1, 4, 4], "float32", "x")])
opt = oar.optimizer.Adam(parameters=net.parameters(), learning_rate=oar.optimizer.lr.StepDecay(0.1, 2))
net(oar.randn([2, 1, 4, 4])).sum().backward()
opt.step()
oar.save(net.state_dict(), sys.argv[1] + "/model.pdparams")
oar.save(opt.state_dict(), sys.argv[1] + "/model.pdopt", protocol=2)
oar.save({"nested": [oar.ones([2]), 3, "s", (1.5, None)]}, sys.argv[1] + "/object.pdparams")
EOF
fi
# Seeds for fuzz_paddle_model: a small model written by real Paddle (program and tensor stream).
if [ ! -f "$OUT/seeds/paddle/model.json" ]; then
  mkdir -p "$OUT/seeds/paddle"
  .venv/bin/python - "$OUT/seeds/paddle" <<'EOF' >/dev/null 2>&1 || echo "[fuzz] no Paddle: fuzz_paddle_model starts from oar's seeds"
import sys
import paddle
net = paddle.nn.Sequential(paddle.nn.Conv2D(1, 2, 3), paddle.nn.BatchNorm2D(2), paddle.nn.ReLU(), paddle.nn.Flatten(),
                           paddle.nn.Linear(8, 3), paddle.nn.Softmax())
net.eval()
paddle.jit.save(net, sys.argv[1] + "/model", input_spec=[paddle.static.InputSpec([None, 1, 4, 4], "float32", "x")])
EOF
  # The same in the legacy ProgramDesc format (model.pdmodel).
  FLAGS_enable_pir_api=0 .venv/bin/python - "$OUT/seeds/paddle" <<'EOF' >/dev/null 2>&1 || true
import sys
import paddle
net = paddle.nn.Sequential(paddle.nn.Conv2D(1, 2, 3), paddle.nn.BatchNorm2D(2), paddle.nn.ReLU(), paddle.nn.Flatten(),
                           paddle.nn.Linear(8, 3), paddle.nn.Softmax())
net.eval()
paddle.jit.save(net, sys.argv[1] + "/legacy", input_spec=[paddle.static.InputSpec([None, 1, 4, 4], "float32", "x")])
EOF
fi

# OAR_FUZZ_RUNS=N: N executions from seed 1 instead of a time budget, so that a CI run is the
# same search every time (a time budget explores as far as the machine's speed allows).
if [ -n "${OAR_FUZZ_RUNS:-}" ]; then
  LIMIT=(-runs="$OAR_FUZZ_RUNS" -seed=1)
else
  LIMIT=(-max_total_time="$SECONDS_PER_TARGET")
fi

status=0
run_libfuzzer() {  # target, seed file
  local target=$1 seed=$2
  local corpus="$OUT/corpus_$target" crashes="$OUT/crashes_$target"
  mkdir -p "$corpus" "$crashes"
  cp -n "$seed" "$corpus/" 2>/dev/null || true
  # Earlier crashes first: each must now pass.
  if compgen -G "tests/fuzz/regressions/$target/*" >/dev/null; then
    "$OUT/$target" -runs=1 tests/fuzz/regressions/"$target"/* >"$OUT/$target.regress.log" 2>&1 ||
      { echo "[fuzz] $target: a saved regression fails again (log: $OUT/$target.regress.log)"; status=1; }
  fi
  if "$OUT/$target" "${LIMIT[@]}" -timeout=10 -rss_limit_mb=3072 \
       -max_len=65536 -artifact_prefix="$crashes/" "$corpus" >"$OUT/$target.log" 2>&1; then
    echo "[fuzz] $target: $(grep -E '^#[0-9]+.*DONE' "$OUT/$target.log" | tail -1 | sed 's/  */ /g'); no crash"
  else
    echo "[fuzz] $target: CRASH; reproducer in $crashes/ (log: $OUT/$target.log)"
    tail -30 "$OUT/$target.log"
    status=1
  fi
}
run_libfuzzer fuzz_safetensors "$OUT/seeds/model.pdiparams"
run_libfuzzer fuzz_program "$OUT/seeds/model.pdmodel"
mkdir -p "$OUT/corpus_fuzz_paddle_model"
cp -n "$OUT/seeds/paddle/model.pdiparams" "$OUT/seeds/paddle/legacy.pdmodel" "$OUT/corpus_fuzz_paddle_model/" 2>/dev/null || true
run_libfuzzer fuzz_paddle_model "$OUT/seeds/paddle/model.json"

if [ "$OP_CASES" -gt 0 ]; then  # 0: skip (the test command's ctest runs a bounded pass already)
  echo "[fuzz] op fuzzer: $OP_CASES cases per op"
  "$BUILD/oar_op_fuzz" --cases "$OP_CASES" --seed "${OAR_FUZZ_SEED:-1}" | tail -40 || status=1
fi

if .venv/bin/python -c "import atheris" 2>/dev/null || .venv/bin/python -m pip install -q atheris; then
  echo "[fuzz] atheris: oar.load and jit.load"
  if compgen -G "tests/fuzz/regressions/fuzz_load/*" >/dev/null; then
    .venv/bin/python tests/fuzz/fuzz_load.py tests/fuzz/regressions/fuzz_load/* >"$OUT/fuzz_load.regress.log" 2>&1 ||
      { echo "[fuzz] fuzz_load: a saved regression fails again (log: $OUT/fuzz_load.regress.log)"; status=1; }
  fi
  ATHERIS_LIMIT=("${LIMIT[@]}")
  [ -n "${OAR_ATHERIS_SECONDS:-}" ] && ATHERIS_LIMIT=(-max_total_time="$OAR_ATHERIS_SECONDS")
  .venv/bin/python tests/fuzz/fuzz_load.py "${ATHERIS_LIMIT[@]}" -timeout=10 \
    -rss_limit_mb=4096 -artifact_prefix="$OUT/" "$OUT/seeds" >"$OUT/fuzz_load.log" 2>&1 ||
    { echo "[fuzz] fuzz_load: CRASH (log: $OUT/fuzz_load.log)"; tail -30 "$OUT/fuzz_load.log"; status=1; }
  grep -E '^#[0-9]+.*DONE' "$OUT/fuzz_load.log" | tail -1 | sed 's/^/[fuzz] fuzz_load: /' || true
else
  echo "[fuzz] atheris could not be installed: the Python loaders were not fuzzed"
fi
exit $status
