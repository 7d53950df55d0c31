"""atheris target: oar.load (checkpoints, .pdparams/.pdopt) and jit.load (.pdmodel + .pdiparams)
on arbitrary bytes. Contract: each call returns or raises one of the documented errors
(ValueError for a damaged file, pickle.UnpicklingError for a refused global, NotImplementedError,
MemoryError); any other exception, a crash or a hang is a bug. Run by tools/run_fuzz.sh."""
import io
import os
import pickle
import sys
import tempfile

import atheris

with atheris.instrument_imports():
    import oar

EXPECTED = (ValueError, pickle.UnpicklingError, NotImplementedError, MemoryError)
_DIR = tempfile.mkdtemp(prefix="oar_fuzz_load_")


def _jit_load(data):
    # The first byte picks where the bytes split into the program file and the parameter file.
    cut = data[0] * len(data) // 256 if data else 0
    prefix = os.path.join(_DIR, "m")
    with open(prefix + ".pdmodel", "wb") as f:
        f.write(data[1:cut])
    with open(prefix + ".pdiparams", "wb") as f:
        f.write(data[cut:])
    oar.jit.load(prefix)


def test_one_input(data):
    try:
        oar.load(io.BytesIO(data))
    except EXPECTED:
        pass
    try:
        _jit_load(data)
    except EXPECTED:
        pass


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
