#!/usr/bin/env bash
# Developer shortcut: rebuild the existing CMake tree and copy the libraries into the venv,
# and the Python package's sources into the venv, skipping pip (seconds instead of a minute).
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_DIR=${CCACHE_DIR:-$PWD/.ccache}
cmake --build build/release
# Found by path, not by importing oar: a stale library may not import.
site=$(echo .venv/lib/python3*/site-packages/oar)
cp -r python/oar/. "$site/"
cp build/release/liboar*.so build/release/_C.*.so build/release/_C.pyi "$site/"
# The C++ headers the package carries (oar.sysconfig.get_include(): custom ops build against them).
(cd oar && find . \( -name '*.h' -o -name '*.inc' \) -exec install -D -m644 {} "../$site/include/oar/{}" \;)
