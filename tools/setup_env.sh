#!/usr/bin/env bash
# Installs what oar needs (Debian packages, a venv at .venv/ with build and test tools) and builds
# and installs oar into the venv. Idempotent: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

APT_PACKAGES="build-essential cmake ninja-build ccache libdnnl-dev libsleef-dev liblapack-dev libgtest-dev libgloo-dev libfftw3-dev nlohmann-json3-dev python3-venv"
need=""
for p in $APT_PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
  echo "[setup] installing Debian packages:$need"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv"
  "$PY" -m venv .venv
fi
# Python packages, pinned in one place (tools/requirements-dev.txt); skipped when satisfied.
stamp=.venv/.requirements-stamp
if [ ! -f "$stamp" ] || ! cmp -s tools/requirements-dev.txt "$stamp"; then
  echo "[setup] installing Python packages"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -r tools/requirements-dev.txt
  cp tools/requirements-dev.txt "$stamp"
fi

# Build and install oar (incremental: the CMake tree lives in build/, compiler cache in ccache).
export CCACHE_DIR=${CCACHE_DIR:-$ROOT/.ccache}
# Paths relative to the checkout in cache keys: another clone (or git worktree) shares hits.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT}
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
echo "[setup] building oar"
.venv/bin/python -m pip install -q --no-build-isolation --no-deps . \
  -Ccmake.define.OAR_BUILD_TESTS=ON -Ccmake.define.OAR_BUILD_EXAMPLES=ON \
  -Cbuild-dir=build/release -Ccmake.args=-GNinja
echo "[setup] oar installed into .venv"
