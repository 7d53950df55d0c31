"""A process killed (SIGKILL) in the middle of oar.save, oar.jit.save or Model.save never damages
the file it was replacing: the previous file always loads intact, and the temporary file a kill
leaves behind is never taken for the model."""
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import oar

# Writes one ~32 MB object onto argv[2] (built the same in every run): once, or over and over
# after printing "ready" until it is killed.
WRITER = textwrap.dedent("""
    import sys
    import numpy as np
    import oar

    kind, path, mode = sys.argv[1:4]
    rng = np.random.RandomState(0)

    def randn(*shape):
        return rng.standard_normal(shape).astype("float32")

    if kind == "save":
        obj = {f"w{i}": oar.to_tensor(randn(1024, 2048)) for i in range(4)}
        obj["meta"] = {"epoch": 3, "tag": "x"}
        save = lambda: oar.save(obj, path)
    elif kind == "jit":
        net = oar.nn.Linear(2048, 4096)
        net.weight.set_value(randn(2048, 4096))
        net.bias.set_value(randn(4096))
        spec = [oar.static.InputSpec([None, 2048], "float32", "x")]
        save = lambda: oar.jit.save(net, path, input_spec=spec)
    else:  # Model.save: <path>.pdparams (8 MB) and <path>.pdopt (Adam's two moments, 16 MB)
        net = oar.nn.Linear(1024, 2048)
        net.weight.set_value(randn(1024, 2048))
        opt = oar.optimizer.Adam(parameters=net.parameters())
        ((net.weight * 0.5).sum() + net.bias.sum()).backward()  # exact gradients: same moments each run
        opt.step()
        model = oar.Model(net)
        model.prepare(opt)
        save = lambda: model.save(path)
    save()
    if mode == "loop":
        print("ready", flush=True)
        while True:
            save()
""")

RUNS = 10
MODEL_SUFFIXES = (".pdparams", ".pdopt", ".pdmodel", ".pdiparams")


def writer(kind, path, mode, **kwargs):
    return subprocess.Popen([sys.executable, "-c", WRITER, kind, path, mode], **kwargs)


def strays(directory, files):
    return set(os.listdir(directory)) - files - {"stderr.txt"}


def kill_during_save(child, directory, files, targeted, rng):
    """SIGKILL child after a random delay, or (targeted) just after a temporary file appears:
    in the middle of writing it."""
    if targeted:
        deadline = time.monotonic() + 10
        while not strays(directory, files) and time.monotonic() < deadline:
            time.sleep(0.001)
        time.sleep(rng.uniform(0.0, 0.005))
    else:
        time.sleep(rng.uniform(0.0, 0.3))
    os.kill(child.pid, signal.SIGKILL)


def read(kind, path):
    """Everything the saved files hold, as NumPy, through the loader a user would call."""
    if kind == "save":
        return oar.load(path, return_numpy=True)
    if kind == "jit":
        layer = oar.jit.load(path)
        return [p.numpy() for p in layer.parameters()]
    net = oar.nn.Linear(1024, 2048)
    model = oar.Model(net)
    model.prepare(oar.optimizer.Adam(parameters=net.parameters()))
    model.load(path)
    return {"params": [p.numpy() for p in net.parameters()],
            "pdopt": oar.load(path + ".pdopt", return_numpy=True)}


def assert_same(got, want):
    if isinstance(want, dict):
        assert list(got) == list(want)
        for key in want:
            assert_same(got[key], want[key])
    elif isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
    elif isinstance(want, np.ndarray):
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want


@pytest.mark.parametrize("kind", ["save", "jit", "model"])
def test_sigkill_during_save_keeps_the_previous_file(tmp_path, kind):
    path = str(tmp_path / ("model.pdparams" if kind == "save" else "model"))
    assert writer(kind, path, "once").wait(timeout=60) == 0
    files = set(os.listdir(tmp_path))
    want = read(kind, path)
    rng = random.Random(kind)
    mid_write = 0  # kills that left a temporary file: they landed while a file was being written
    for run in range(RUNS):
        with open(tmp_path / "stderr.txt", "w") as err:
            child = writer(kind, path, "loop", stdout=subprocess.PIPE, stderr=err, text=True)
        try:
            assert child.stdout.readline() == "ready\n", (tmp_path / "stderr.txt").read_text()[-2000:]
            kill_during_save(child, tmp_path, files, run % 2 == 0, rng)
        finally:
            child.kill()
            child.wait()
            child.stdout.close()
        assert child.returncode == -signal.SIGKILL
        left = strays(tmp_path, files)
        for name in left:  # never a name a loader or a glob for model files would pick up
            assert ".tmp" in name and not name.endswith(MODEL_SUFFIXES), name
        assert_same(read(kind, path), want)
        mid_write += bool(left)
        for name in left:
            os.remove(tmp_path / name)
    assert mid_write >= RUNS // 4, f"only {mid_write} of {RUNS} kills landed during a write"
