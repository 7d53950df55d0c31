"""A process killed (SIGKILL) in the middle of oar.save, oar.jit.save or Model.save never damages
the files it was replacing: each file always loads intact, the two files of a pair (Model.save's
.pdparams and .pdopt, jit.save's .pdiparams and .pdmodel) come from the same save except in the
instant between their two renames, the temporary files a kill leaves behind are never taken for
the model, and the next save of the same target removes them."""
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import oar
from oar.framework import atomic_files

# Saves a ~32 MB object onto argv[2] (built the same in every run) once, or over and over after
# printing "ready" until it is killed. Each save carries its generation (start, start + 1, ...)
# in every file it writes, so that a reader tells which save each file comes from.
WRITER = textwrap.dedent("""
    import sys
    import numpy as np
    import oar

    kind, path, mode, start = sys.argv[1:5]
    rng = np.random.RandomState(0)

    def randn(*shape):
        return rng.standard_normal(shape).astype("float32")

    class Shifted(oar.nn.Linear):
        '''A Linear whose output is shifted by gen: the constant lands in the saved program.'''
        gen = 0.0

        def forward(self, x):
            return super().forward(x) + self.gen

    if kind == "save":
        obj = {f"w{i}": oar.to_tensor(randn(1024, 2048)) for i in range(4)}
        obj["meta"] = {"epoch": 0, "tag": "x"}

        def save(gen):
            obj["meta"]["epoch"] = gen
            oar.save(obj, path)
    elif kind == "jit":  # <path>.pdiparams: the bias is gen; <path>.pdmodel: the shift is gen
        net = Shifted(2048, 4096)
        net.weight.set_value(randn(2048, 4096))
        spec = [oar.static.InputSpec([None, 2048], "float32", "x")]

        def save(gen):
            net.bias.set_value(np.full([4096], gen, "float32"))
            net.gen = float(gen)
            oar.jit.save(net, path, input_spec=spec)
    else:  # Model.save: <path>.pdparams (8 MB, the bias is gen), <path>.pdopt (16 MB, the
        # scheduler's last_epoch is gen)
        net = oar.nn.Linear(1024, 2048)
        net.weight.set_value(randn(1024, 2048))
        sched = oar.optimizer.lr.StepDecay(0.001, 1000)
        opt = oar.optimizer.Adam(sched, parameters=net.parameters())
        ((net.weight * 0.5).sum() + net.bias.sum()).backward()  # exact gradients: same moments each run
        opt.step()
        model = oar.Model(net)
        model.prepare(opt)

        def save(gen):
            net.bias.set_value(np.full([2048], gen, "float32"))
            sched.last_epoch = gen
            model.save(path)
    gen = int(start)
    save(gen)
    if mode == "loop":
        print("ready", flush=True)
        while True:
            gen += 1
            save(gen)
""")

RUNS = 10
MODEL_SUFFIXES = (".pdparams", ".pdopt", ".pdmodel", ".pdiparams")


def writer(script, kind, path, mode, start, **kwargs):
    return subprocess.Popen([sys.executable, str(script), kind, path, mode, str(start)], **kwargs)


def strays(directory, files):
    return set(os.listdir(directory)) - files


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


def constant(a):
    """The value every element of a holds (a file's generation)."""
    a = np.asarray(a).ravel()
    assert (a == a[0]).all()
    return int(a[0])


def read(kind, path):
    """(content, generations): everything the saved files hold, as NumPy, through the loaders a
    user would call, without the generation tags; and each file's generation, in the order the
    files are renamed (for a pair: the first renamed, then the second)."""
    if kind == "save":
        obj = oar.load(path, return_numpy=True)
        return obj, [obj["meta"].pop("epoch")]
    if kind == "jit":
        layer = oar.jit.load(path)
        bias, weight = sorted((p.numpy() for p in layer.parameters()), key=np.ndim)
        shift = layer(oar.zeros([1, 2048])).numpy() - bias
        return [weight], [constant(bias), constant(shift)]
    params = oar.load(path + ".pdparams", return_numpy=True)
    opt = oar.load(path + ".pdopt", return_numpy=True)
    bias = params.pop(next(k for k in params if k.endswith("bias")))
    gens = [constant(bias), opt["LR_Scheduler"].pop("last_epoch")]
    # What Model.load reads, too: both files load into the model and its optimizer.
    net = oar.nn.Linear(1024, 2048)
    model = oar.Model(net)
    model.prepare(oar.optimizer.Adam(oar.optimizer.lr.StepDecay(0.001, 1000), parameters=net.parameters()))
    model.load(path)
    return {"params": params, "pdopt": opt}, gens


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


def temp_pid(name):
    """The writer's pid in a temporary's name (.<target>.<host>.<pid>.<random>.tmp)."""
    m = re.fullmatch(r"\..+\.[0-9a-f]{8}\.(\d+)\.[0-9a-f]{8}\.tmp", name)
    assert m, name
    return int(m[1])


@pytest.mark.parametrize("kind", ["save", "jit", "model"])
def test_sigkill_during_save_keeps_the_previous_file(tmp_path, kind):
    script = tmp_path / "writer.py"  # a file, so that to_static reads Shifted.forward's source
    script.write_text(WRITER)
    out = tmp_path / "out"
    out.mkdir()
    path = str(out / ("model.pdparams" if kind == "save" else "model"))
    assert writer(script, kind, path, "once", 0).wait(timeout=60) == 0
    files = set(os.listdir(out))
    want, gens = read(kind, path)
    assert set(gens) == {0}
    rng = random.Random(kind)
    mid_write = 0  # kills that left a temporary file: they landed while a file was being written
    mixed = 0  # kills that left a pair mixed: they landed between its two renames
    for run in range(RUNS):
        start = 10_000 * (run + 1)  # generations of distinct children never meet
        with open(tmp_path / "stderr.txt", "w") as err:
            child = writer(script, kind, path, "loop", start, stdout=subprocess.PIPE, stderr=err, text=True)
        try:
            assert child.stdout.readline() == "ready\n", (tmp_path / "stderr.txt").read_text()[-2000:]
            kill_during_save(child, out, files, run % 2 == 0, rng)
        finally:
            child.kill()
            child.wait()
            child.stdout.close()
        assert child.returncode == -signal.SIGKILL
        left = strays(out, files)
        for name in left:  # never a name a loader or a glob for model files would pick up
            assert name.startswith(".") and ".tmp" in name and not name.endswith(MODEL_SUFFIXES), name
            # The temporaries of earlier killed children went with this child's first save.
            assert temp_pid(name) == child.pid, name
        got, gens = read(kind, path)
        assert_same(got, want)  # every file whole
        assert min(gens) >= start, gens  # this child's files (its first save precedes "ready")
        if len(gens) == 2 and gens[0] != gens[1]:
            # Only between the two renames: the first file is then one save newer.
            assert gens[0] == gens[1] + 1, gens
            mixed += 1
        mid_write += bool(left)
    assert mid_write >= RUNS // 4, f"only {mid_write} of {RUNS} kills landed during a write"
    # The renames follow each other directly: landing between them twice would mean they don't.
    assert mixed <= 1, f"{mixed} of {RUNS} kills left a mixed pair"
    # A save that completes removes what the last killed writer left.
    assert writer(script, kind, path, "once", 0).wait(timeout=60) == 0
    assert strays(out, files) == set()
    assert read(kind, path)[1] == [0] * len(gens)


# ---- in-process: the order of writes and renames, and which temporaries are removed ----

def _record_renames(monkeypatch, directory):
    """Each os.replace as (source, target, {file under directory: size} just before it)."""
    calls = []
    real = os.replace

    def spy(src, dst, *args, **kwargs):
        sizes = {os.path.join(d, f): os.path.getsize(os.path.join(d, f))
                 for d, _, names in os.walk(directory) for f in names}
        calls.append((os.fspath(src), os.fspath(dst), sizes))
        return real(src, dst, *args, **kwargs)
    monkeypatch.setattr(os, "replace", spy)
    return calls


def _save_pair(kind, path):
    net = oar.nn.Linear(64, 32)
    if kind == "jit":
        oar.jit.save(net, path, input_spec=[oar.static.InputSpec([None, 64], "float32", "x")])
        return (".pdiparams", ".json")  # Paddle's format: every op of a Linear has a Paddle form
    opt = oar.optimizer.Adam(parameters=net.parameters())
    net(oar.rand([2, 64])).sum().backward()
    opt.step()
    model = oar.Model(net)
    model.prepare(opt)
    model.save(path)
    return (".pdparams", ".pdopt")


@pytest.mark.parametrize("kind", ["jit", "model"])
def test_pair_is_written_whole_before_the_first_rename(tmp_path, monkeypatch, kind):
    path = str(tmp_path / "model")
    calls = _record_renames(monkeypatch, tmp_path)
    suffixes = _save_pair(kind, path)
    ours = [c for c in calls if c[1] in {path + s for s in suffixes}]
    assert [dst for _, dst, _ in ours] == [path + s for s in suffixes]
    assert calls[-2:] == ours  # back to back: nothing written between the two renames
    (_, _, before_first), (second_src, second_dst, _) = ours
    # When the first file replaced its target, the second was already complete.
    assert before_first[second_src] == os.path.getsize(second_dst) > 0
    assert sorted(os.listdir(tmp_path)) == sorted("model" + s for s in suffixes)


def _dead_pid():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.mark.skipif(os.name != "posix", reason="writers are told apart by pid on POSIX only")
def test_save_removes_only_temporaries_of_dead_writers(tmp_path):
    path = tmp_path / "model.pdparams"
    host = atomic_files._host_tag()
    other_host = "0" * 8 if host != "0" * 8 else "1" * 8
    dead = _dead_pid()
    stale = [f".model.pdparams.{host}.{dead}.0123abcd.tmp"]
    kept = [
        f".model.pdparams.{host}.{os.getpid()}.0123abcd.tmp",  # a live writer (this process)
        f".model.pdparams.{other_host}.{dead}.0123abcd.tmp",  # another host's: its pid says nothing here
        f".other.pdparams.{host}.{dead}.0123abcd.tmp",  # another target's
        "model.pdparams.tmp.Ab3dEf",  # not ours to judge
    ]
    for name in stale + kept:
        (tmp_path / name).write_bytes(b"partial")
    (tmp_path / f".model.{host}.{dead}.0123abcd.tmp").mkdir()  # jit.save's temporary directory
    (tmp_path / f".model.{host}.{dead}.0123abcd.tmp" / "model.pdiparams").write_bytes(b"partial")

    oar.save({"w": oar.ones([2])}, str(path))
    assert sorted(os.listdir(tmp_path)) == sorted(kept + ["model.pdparams", f".model.{host}.{dead}.0123abcd.tmp"])
    oar.jit.save(oar.nn.Linear(2, 2), str(tmp_path / "model"),
                 input_spec=[oar.static.InputSpec([None, 2], "float32", "x")])
    assert sorted(os.listdir(tmp_path)) == sorted(kept + ["model.pdparams", "model.pdiparams", "model.json"])


def test_failed_save_of_a_pair_keeps_the_previous_pair(tmp_path, monkeypatch):
    """A failure while writing the second file leaves both old files and no temporary."""
    path = str(tmp_path / "model")
    _save_pair("model", path)
    before = {s: open(path + s, "rb").read() for s in (".pdparams", ".pdopt")}
    calls = _record_renames(monkeypatch, tmp_path)
    real_fsync = os.fsync
    synced = []

    def fail_second_fsync(fd):
        synced.append(fd)
        if len(synced) == 2:
            raise OSError(28, "No space left on device")
        return real_fsync(fd)
    monkeypatch.setattr(os, "fsync", fail_second_fsync)
    with pytest.raises(OSError, match="No space"):
        _save_pair("model", path)
    assert calls == []
    assert sorted(os.listdir(tmp_path)) == ["model.pdopt", "model.pdparams"]
    assert {s: open(path + s, "rb").read() for s in before} == before
