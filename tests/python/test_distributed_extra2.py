"""The remaining names of oar.distributed and its sub-namespaces: fleet's recompute (activation
checkpointing: gradients equal a plain run's, the block runs again in backward, the first run keeps
no graph, dropout repeats its mask), recompute_sequential / recompute_hybrid, the file-system
clients (LocalFS; HDFSClient against a fake hadoop binary and without one), the MultiSlot data
generators (byte-equal to Paddle's), the in-memory / queue datasets, UtilBase, the distributed
save utilities, DistributedInfer, paddle.distributed.split, and the ConvParallel /
ContextParallel / PrepareContextParallel plans (one process equals dense; two processes equal
one)."""
import io
import os
import pickle
import stat
import sys
import textwrap
import warnings

import numpy as np
import pytest

import oar
import oar.distributed as dist
from oar.distributed import fleet
from oar.distributed.fleet.utils import DistributedInfer, HDFSClient, LocalFS, recompute
from oar.distributed.fleet.utils import fs as fsmod
from oar.incubate.distributed.fleet import recompute_hybrid, recompute_sequential
from dist_util import all_ok, run_job

try:
    import paddle
except Exception:  # noqa: BLE001
    paddle = None
needs_paddle = pytest.mark.skipif(paddle is None, reason="real Paddle is not importable")
needs_gloo = pytest.mark.skipif(not oar._C._dist.available, reason="oar was built without Gloo")


# ---------------------------------------------------------------- recompute

def _block(seed=0, dropout=0.0, dtype="float64"):
    oar.seed(seed)
    layers = [oar.nn.Linear(5, 6), oar.nn.Tanh()]
    if dropout:
        layers.append(oar.nn.Dropout(dropout))
    layers += [oar.nn.Linear(6, 3)]
    return oar.nn.Sequential(*layers).to(dtype=dtype)


def _grads(net, x):
    return [x.grad.numpy().copy()] + [p.grad.numpy().copy() for p in net.parameters()]


def _clear(net, x):
    net.clear_gradients()
    x.clear_gradient()


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_recompute_gradients_equal_plain_run(use_reentrant):
    net = _block()
    x = oar.to_tensor(np.random.RandomState(0).randn(4, 5))
    x.stop_gradient = False
    (net(x) ** 2).sum().backward()
    ref = _grads(net, x)
    _clear(net, x)
    y = recompute(net, x, use_reentrant=use_reentrant)
    assert not y.stop_gradient
    (y ** 2).sum().backward()
    for a, b in zip(_grads(net, x), ref):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_recompute_gradient_is_numerically_right():
    net = _block()
    x0 = np.random.RandomState(1).randn(2, 5)
    x = oar.to_tensor(x0)
    x.stop_gradient = False
    recompute(net, x).sum().backward()
    eps, num = 1e-6, np.zeros_like(x0)
    for i in np.ndindex(*x0.shape):
        d = np.zeros_like(x0)
        d[i] = eps
        with oar.no_grad():
            num[i] = (net(oar.to_tensor(x0 + d)).sum().item() - net(oar.to_tensor(x0 - d)).sum().item()) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-6, atol=1e-8)


def test_recompute_runs_the_block_again_and_keeps_no_graph():
    net = _block()
    seen = []
    net[0].register_forward_post_hook(lambda layer, inputs, out: seen.append(out.stop_gradient))
    x = oar.randn([3, 5]).astype("float64")
    x.stop_gradient = False
    y = recompute(net, x)
    # The first run records nothing: its activations hold no graph (nothing saved for backward).
    assert seen == [True]
    y.sum().backward()
    # Backward ran the block again, with a graph this time.
    assert seen == [True, False]
    net(x)
    assert seen[-1] is False   # a plain run records the graph


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_recompute_preserves_the_dropout_mask(use_reentrant):
    net = _block(dropout=0.5)
    x = oar.randn([8, 5]).astype("float64")
    x.stop_gradient = False
    state = oar.get_rng_state()
    y = recompute(net, x, use_reentrant=use_reentrant)
    y.sum().backward()
    got = _grads(net, x)
    _clear(net, x)
    oar.set_rng_state(state)
    y_plain = net(x)
    y_plain.sum().backward()
    np.testing.assert_array_equal(y.numpy(), y_plain.numpy())
    for a, b in zip(got, _grads(net, x)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    # Without preserve_rng_state the recomputation draws a new mask: the gradients differ from
    # those of the forward that was really run.
    _clear(net, x)
    oar.set_rng_state(state)
    y = recompute(net, x, preserve_rng_state=False, use_reentrant=use_reentrant)
    y.sum().backward()
    assert any(not np.allclose(a, b) for a, b in zip(_grads(net, x)[1:], got[1:]))


def test_recompute_inputs_without_grad():
    net = _block()
    x = oar.randn([2, 5]).astype("float64")
    # Reentrant (Paddle's PyLayer): the output needs grad only when an input does.
    y = recompute(net, x)
    assert y.stop_gradient
    # Non-reentrant: the block's parameters feed the node, so they get their gradients.
    y = recompute(net, x, use_reentrant=False)
    assert not y.stop_gradient
    y.sum().backward()
    got = [p.grad.numpy().copy() for p in net.parameters()]
    net.clear_gradients()
    net(x).sum().backward()
    for a, p in zip(got, net.parameters()):
        np.testing.assert_allclose(a, p.grad.numpy(), rtol=1e-12)


def test_recompute_arguments_and_errors():
    a = oar.to_tensor([1.0, 2.0])
    b = oar.to_tensor([3.0, 4.0])
    a.stop_gradient = b.stop_gradient = False

    def f(a, b, scale=2.0):
        return a * scale, b + 1
    o = recompute(f, a, b, scale=3.0)
    assert isinstance(o, tuple) and not o[0].stop_gradient
    (o[0].sum() + o[1].sum()).backward()
    np.testing.assert_array_equal(a.grad.numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 1.0])

    def kwonly(a, *, k=1):
        return a * k
    with pytest.raises(ValueError, match="keyword-only"):
        recompute(kwonly, a, k=2)
    a.clear_gradient()
    recompute(kwonly, a, k=5, use_reentrant=False).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [5.0, 5.0])
    with pytest.raises(TypeError):
        recompute(f, a, b, bogus=1)

    def pair(t):
        return t[0] * t[1]
    a.clear_gradient()
    recompute(pair, (a, b)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [3.0, 4.0])
    c = oar.to_tensor([1.0, 1.0])
    with pytest.raises(ValueError, match="different stop gradient"):
        recompute(pair, (a, c))
    with pytest.raises(ValueError, match="tensor and non-tensor"):
        recompute(lambda t: t[0], (a, 1))
    # A non-Tensor output, or no output needing grad, fails in backward as in Paddle.
    o = recompute(lambda t: (t * 2, 5), a)
    with pytest.raises(RuntimeError, match="outputs"):
        o[0].sum().backward()
    o = recompute(lambda t: (t * 2).detach(), a)
    with pytest.raises(RuntimeError, match="none of output"):
        o.sum().backward()


@needs_paddle
def test_recompute_matches_paddle():
    rs = np.random.RandomState(3)
    w1, b1, w2, b2 = rs.randn(5, 6), rs.randn(6), rs.randn(6, 2), rs.randn(2)
    x0 = rs.randn(3, 5)
    out = {}
    for lib in (oar, paddle):
        net = lib.nn.Sequential(lib.nn.Linear(5, 6), lib.nn.ReLU(), lib.nn.Linear(6, 2))
        for p, v in zip(net.parameters(), (w1, b1, w2, b2)):
            p.set_value(v.astype("float32"))
        x = lib.to_tensor(x0.astype("float32"), stop_gradient=False)
        from_mod = __import__(f"{lib.__name__}.distributed.fleet.utils", fromlist=["recompute"])
        y = from_mod.recompute(net, x)
        (y * y).sum().backward()
        out[lib.__name__] = [y.numpy(), x.grad.numpy()] + [p.grad.numpy() for p in net.parameters()]
    for a, b in zip(out["oar"], out["paddle"]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_recompute_sequential():
    model = oar.nn.Sequential(oar.nn.Linear(10, 10), oar.nn.Linear(10, 2))
    x = oar.ones([8, 10])
    x.stop_gradient = False
    y = recompute_sequential({"segments": 1}, model, x)
    np.testing.assert_allclose(y.numpy(), model(x).numpy(), rtol=1e-6)
    # As Paddle: a recomputed chunk's output is passed on unpacked (*output).
    with pytest.raises(TypeError):
        recompute_sequential({"segments": 2}, model, x)
    x1 = oar.ones([1, 10])
    x1.stop_gradient = False
    y1 = recompute_sequential({"segments": 2}, model, x1)
    assert y1.shape == [2]
    y1.sum().backward()
    assert x1.grad.shape == [1, 10]


def test_recompute_hybrid():
    lin = oar.nn.Linear(3, 3)
    x = oar.randn([2, 3])
    x.stop_gradient = False
    with pytest.raises(AssertionError, match="mp_group"):
        recompute_hybrid({}, lin, x)
    group = dist.collective.Group(0, 0, [0])
    dev = oar.device.get_device()
    if dev.split(":")[0] not in oar.device.get_all_custom_device_type():
        with pytest.raises(AssertionError, match="not support current device: cpu"):
            recompute_hybrid({"mp_group": group}, lin, x)
        return
    y = recompute_hybrid({"mp_group": group, "partition": True}, lin, x)
    y.sum().backward()
    g = x.grad.numpy().copy()
    x.clear_gradient()
    lin(x).sum().backward()
    np.testing.assert_allclose(g, x.grad.numpy(), rtol=1e-6)


# ---------------------------------------------------------------- file systems

@pytest.mark.host_only
def test_local_fs(tmp_path):
    fs = LocalFS()
    root = str(tmp_path)
    assert fs.ls_dir(root + "/none") == ([], []) and fs.list_dirs(root + "/none") == []
    fs.mkdirs(root + "/a/b")
    fs.touch(root + "/f.txt")
    fs.touch(root + "/f.txt")   # exist_ok
    with pytest.raises(fsmod.FSFileExistsError):
        fs.touch(root + "/f.txt", exist_ok=False)
    with pytest.raises(AssertionError, match="is already a file"):
        fs.mkdirs(root + "/f.txt")
    assert fs.ls_dir(root) == (["a"], ["f.txt"]) and fs.list_dirs(root) == ["a"]
    assert fs.is_file(root + "/f.txt") and not fs.is_dir(root + "/f.txt")
    assert fs.is_dir(root + "/a") and fs.is_exist(root + "/a/b") and not fs.is_exist(root + "/zz")
    assert fs.need_upload_download() is False
    with pytest.raises(fsmod.FSFileNotExistsError):
        fs.mv(root + "/nope", root + "/g")
    fs.touch(root + "/g.txt")
    with pytest.raises(fsmod.FSFileExistsError):
        fs.mv(root + "/f.txt", root + "/g.txt")
    fs.mv(root + "/f.txt", root + "/g.txt", overwrite=True)
    assert not fs.is_exist(root + "/f.txt") and fs.is_file(root + "/g.txt")
    with pytest.raises(FileNotFoundError):
        fs.rename(root + "/nope", root + "/q")
    for method, args in (("upload", (root, root + "/x")), ("download", (root, root + "/y")), ("cat", (root,)),
                         ("upload_dir", (root, root + "/z"))):
        with pytest.raises(NotImplementedError):
            getattr(fs, method)(*args)
    fs.delete(root + "/a")
    fs.delete(root + "/g.txt")
    fs.delete(root + "/nothing")
    assert os.listdir(root) == []


@needs_paddle
@pytest.mark.host_only
def test_local_fs_matches_paddle(tmp_path):
    from paddle.distributed.fleet.utils import LocalFS as PaddleLocalFS
    results = []
    for cls, sub in ((LocalFS, "o"), (PaddleLocalFS, "p")):
        fs, root = cls(), str(tmp_path / sub)
        fs.mkdirs(root + "/d1/d2")
        fs.touch(root + "/x")
        fs.mv(root + "/x", root + "/d1/y")
        results.append((sorted(fs.ls_dir(root + "/d1")[0]), fs.ls_dir(root + "/d1")[1], fs.list_dirs(root),
                        fs.is_file(root + "/d1/y"), fs.is_dir(root + "/d1/y")))
    assert results[0] == results[1]


FAKE_HADOOP = r"""#!/bin/bash
# A stand-in for `hadoop fs`: the -D options are dropped, paths live under $FAKE_HDFS_ROOT.
shift   # "fs"
while [[ "$1" == -D* ]]; do shift; done
R="$FAKE_HDFS_ROOT"
cmd="$1"; shift
case "$cmd" in
  -test) [ "$1" == "-e" ] && { [ -e "$R$2" ]; exit $?; }; [ "$1" == "-d" ] && { [ -d "$R$2" ]; exit $?; } ;;
  -mkdir) if [ "$1" == "-p" ]; then mkdir -p "$R$2"; else mkdir "$R$1" 2>&1; fi ;;
  -ls) for f in "$R$1"/*; do t=-; [ -d "$f" ] && t=d; echo "${t}rwxr-xr-x 1 u g 0 2024-01-01 00:00 ${f#$R}"; done ;;
  -touchz) touch "$R$1" ;;
  -cat) cat "$R$1" ;;
  -mv) mv "$R$1" "$R$2" ;;
  -rm) rm "$R$1" ;;
  -rmr) rm -r "$R$1" ;;
  -put) cp -r "$1" "$R$2" ;;
  -get) cp -r "$R$1" "$2" ;;
  *) exit 1 ;;
esac
"""


@pytest.mark.host_only
def test_hdfs_client_with_a_hadoop_binary(tmp_path, monkeypatch):
    home = tmp_path / "hadoop"
    (home / "bin").mkdir(parents=True)
    binary = home / "bin" / "hadoop"
    binary.write_text(FAKE_HADOOP)
    binary.chmod(binary.stat().st_mode | stat.S_IEXEC)
    root = tmp_path / "hdfs"
    root.mkdir()
    monkeypatch.setenv("FAKE_HDFS_ROOT", str(root))
    monkeypatch.setattr(HDFSClient, "_retry_sleep_second", 0)
    c = HDFSClient(str(home), {"fs.default.name": "hdfs://x:9000", "hadoop.job.ugi": "u,p"}, time_out=2000,
                   sleep_inter=10)
    assert c._base_cmd == f"{home}/bin/hadoop fs -Dfs.default.name=hdfs://x:9000 -Dhadoop.job.ugi=u,p"
    assert c.need_upload_download() is True
    assert not c.is_exist("/a")
    c.mkdirs("/a/b")   # mkdir fails (no parent), then mkdir -p
    assert c.is_exist("/a/b") and c.is_dir("/a") and not c.is_file("/a")
    c.touch("/a/f")
    with pytest.raises(fsmod.FSFileExistsError):
        c.touch("/a/f", exist_ok=False)
    assert c.ls_dir("/a") == (["b"], ["f"]) and c.list_dirs("/a") == ["b"]
    local = tmp_path / "local.txt"
    local.write_text("hello\nworld")
    c.upload(str(local), "/a/up.txt", multi_processes=1)
    assert c.cat("/a/up.txt") == "hello\nworld" and c.cat("/a/none") == ""
    c.download("/a/up.txt", str(tmp_path / "down.txt"))
    assert (tmp_path / "down.txt").read_text() == "hello\nworld"
    with pytest.raises(fsmod.FSFileNotExistsError):
        c.download("/nope", str(tmp_path / "x"))
    with pytest.raises(fsmod.FSFileNotExistsError):
        c.upload(str(tmp_path / "nope"), "/a/x")
    with pytest.raises(fsmod.FSFileExistsError):
        c.mv("/a/up.txt", "/a/f")
    c.mv("/a/up.txt", "/a/f", overwrite=True)
    assert (root / "a" / "f").read_text() == "hello\nworld"
    c.delete("/a")
    assert not c.is_exist("/a")


@pytest.mark.host_only
def test_hdfs_client_without_hadoop(tmp_path, monkeypatch):
    monkeypatch.setattr(HDFSClient, "_retry_sleep_second", 0)
    c = HDFSClient(str(tmp_path / "no-hadoop"), None, time_out=300, sleep_inter=50)
    assert c._base_cmd == f"{tmp_path}/no-hadoop/bin/hadoop fs"
    assert c.is_exist("/x") is False and c.is_dir("/x") is False and c.ls_dir("/x") == ([], [])
    with pytest.raises(fsmod.FSTimeOut):
        c.mkdirs("/x")
    with pytest.raises(fsmod.FSTimeOut):
        c.touch("/x")


def test_distributed_infer():
    infer = DistributedInfer()
    assert isinstance(infer.origin_main_program, oar.static.Program)
    with pytest.raises(NotImplementedError, match="parameter-server"):
        infer.init_distributed_infer_env(None, None)
    with pytest.raises(AttributeError):
        infer.get_dist_infer_program()
    with pytest.raises(TypeError):
        DistributedInfer(main_program=3)


# ---------------------------------------------------------------- data generators

def _generators(lib):
    class Ints(lib.distributed.fleet.MultiSlotDataGenerator):
        def generate_sample(self, line):
            def it():
                toks = line.split()
                yield [("words", [int(t) for t in toks[:-1]]), ("label", [int(toks[-1])])]
                yield [("words", [0.5, 2]), ("label", [1])]
            return it

    class Strs(lib.distributed.fleet.MultiSlotStringDataGenerator):
        def generate_sample(self, line):
            def it():
                yield zip(["words", "label"], [line.split()[:-1], line.split()[-1:]])
            return it

        def generate_batch(self, samples):
            def it():
                for s in reversed(samples):
                    yield s
            return it
    return Ints, Strs


def _run_stdin(gen, text, batch=None):
    stdin, stdout = sys.stdin, sys.stdout
    sys.stdin, sys.stdout = io.StringIO(text), io.StringIO()
    try:
        if batch:
            gen.set_batch(batch)
        gen.run_from_stdin()
        return sys.stdout.getvalue()
    finally:
        sys.stdin, sys.stdout = stdin, stdout


TEXT = "1926 8 17 1\n3 4 0\n7 1\n"
# What Paddle 3.3.1's generators write for TEXT (recorded; recomputed below when paddle imports).
PADDLE_INTS = "3 1926 8 17 1 1\n2 0.5 2 1 1\n2 3 4 1 0\n2 0.5 2 1 1\n1 7 1 1\n2 0.5 2 1 1\n"
PADDLE_STRS = "2 3 4 1 0\n3 1926 8 17 1 1\n1 7 1 1\n"


def test_data_generators_write_paddles_protocol():
    Ints, Strs = _generators(oar)
    g = Ints()
    assert _run_stdin(g, TEXT) == PADDLE_INTS
    assert g._proto_info == [("words", "float"), ("label", "uint64")]
    assert _run_stdin(Strs(), TEXT, batch=2) == PADDLE_STRS
    new = fleet.MultiSlotDataGenerator
    with pytest.raises(ValueError, match="list or tuple"):
        new()._gen_str("x")
    with pytest.raises(ValueError, match="must be in str type"):
        new()._gen_str([(1, [1])])
    with pytest.raises(ValueError, match="can not be empty"):
        new()._gen_str([("a", [])])
    with pytest.raises(ValueError, match="must be in list type"):
        new()._gen_str([("a", (1,))])
    g = fleet.MultiSlotDataGenerator()
    g._gen_str([("a", [1]), ("b", [2])])
    with pytest.raises(ValueError, match="inconsistent"):
        g._gen_str([("a", [1])])
    with pytest.raises(ValueError, match="not match"):
        g._gen_str([("a", [1]), ("c", [2])])
    with pytest.raises(ValueError, match="int or float"):
        g._gen_str([("a", ["s"]), ("b", [2])])
    with pytest.raises(NotImplementedError):
        fleet.MultiSlotDataGenerator().generate_sample("x")


@needs_paddle
def test_data_generators_equal_paddles():
    for lib_out in ((_generators(paddle), PADDLE_INTS, PADDLE_STRS),):
        (Ints, Strs), ints, strs = lib_out
        assert _run_stdin(Ints(), TEXT) == ints
        assert _run_stdin(Strs(), TEXT, batch=2) == strs


# ---------------------------------------------------------------- datasets

def _slot_vars(*specs):
    oar.enable_static()
    try:
        with oar.static.program_guard(oar.static.Program(), oar.static.Program()):
            return [oar.static.data(name=n, shape=[-1, 1], dtype=d, lod_level=1) for n, d in specs]
    finally:
        oar.disable_static()


DESC = '''name: "MultiSlotInMemoryDataFeed"
batch_size: 2
multi_slot_desc {
  slots {
    name: "ids"
    type: "uint64"
    is_dense: true
    is_used: true
    shape: -1
    shape: 1
  }
  slots {
    name: "score"
    type: "float"
    is_dense: true
    is_used: true
    shape: -1
    shape: 1
  }
}
pipe_command: "cat"
input_type: 0
'''


@pytest.mark.host_only
def test_in_memory_dataset(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("2 1 2 1 0.5\n3 4 5 6 1 1.5\n")
    b.write_text("1 7 2 0.25 0.75\n")
    ids, score = _slot_vars(("ids", "int64"), ("score", "float32"))
    ds = dist.InMemoryDataset()
    ds.init(batch_size=2, thread_num=2, pipe_command="cat", use_var=[ids, score])
    assert ds._desc() == DESC
    ds.set_filelist([str(a), str(b), str(tmp_path / "missing.txt")])   # a missing file reads as empty
    ds.load_into_memory()
    assert ds.get_memory_data_size() == 3 and ds.get_shuffle_data_size() == 0
    recs = [(r[2][0].tolist(), r[2][1].tolist()) for r in ds._records]
    assert recs == [([1, 2], [0.5]), ([4, 5, 6], [1.5]), ([7], [0.25, 0.75])]
    ds.local_shuffle()
    assert sorted((r[2][0].tolist(), r[2][1].tolist()) for r in ds._records) == sorted(recs)
    ds.global_shuffle()   # one worker: a local shuffle
    assert ds.get_shuffle_data_size() == 3
    ds.release_memory()
    assert ds.get_memory_data_size() == 0
    ds.preload_into_memory()
    ds.wait_preload_done()
    assert ds.get_memory_data_size() == 3
    ds.update_settings(batch_size=4, thread_num=1, parse_ins_id=False)
    assert ds.proto_desc.batch_size == 4 and ds.thread_num == 1


@pytest.mark.host_only
def test_dataset_pipe_command_runs_a_data_generator(tmp_path):
    script = tmp_path / "gen.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.abspath(oar.__file__)))!r})
        from oar.distributed import fleet
        class G(fleet.MultiSlotDataGenerator):
            def generate_sample(self, line):
                def it():
                    toks = [int(t) for t in line.split(",")]
                    yield [("ids", toks[:-1]), ("label", toks[-1:])]
                return it
        G().run_from_stdin()
    """))
    raw = tmp_path / "raw.csv"
    raw.write_text("1,2,3,0\n4,5,1\n")
    ids, label = _slot_vars(("ids", "int64"), ("label", "int64"))
    ds = dist.InMemoryDataset()
    ds.init(batch_size=1, use_var=[ids, label], pipe_command=f"{sys.executable} {script}")
    ds.set_filelist([str(raw)])
    ds.load_into_memory()
    assert [[v.tolist() for v in r[2]] for r in ds._records] == [[[1, 2, 3], [0]], [[4, 5], [1]]]


@pytest.mark.host_only
def test_dataset_errors_and_settings(tmp_path):
    bad = tmp_path / "bad.txt"
    ids, score = _slot_vars(("ids", "int64"), ("score", "float32"))
    ds = dist.InMemoryDataset()
    ds.init(batch_size=1, use_var=[ids, score])
    ds.set_filelist([str(bad)])
    for line in ("2 1\n", "0 1 1 1.5\n", "1 2.5 1 1\n", "1 a 1 1\n", "\n"):
        bad.write_text(line)
        with pytest.raises(ValueError, match="The number of ids can not be zero"):
            ds.load_into_memory()
    bad.write_text("1 5 1 2.5 9 9\n")   # tokens past the last slot are ignored (as Paddle)
    ds.load_into_memory()
    assert ds.get_memory_data_size() == 1
    empty = dist.InMemoryDataset()
    empty.init(batch_size=1)
    with pytest.raises(RuntimeError, match="Multi_slot_desc"):
        empty.load_into_memory()
    (i32,) = _slot_vars(("i32", "int32"))
    with pytest.raises(ValueError, match="float32 and dtype=int64"):
        dist.QueueDataset().init(use_var=[i32])
    with pytest.raises(TypeError):
        ds.set_filelist("a.txt")
    q = dist.QueueDataset()
    q.init(batch_size=3, use_var=[score])
    assert q._desc().startswith('name: "MultiSlotDataFeed"\nbatch_size: 3\n') and not hasattr(q, "local_shuffle")
    with pytest.raises(NotImplementedError):
        ds.tdm_sample("t", "p", [1], 0, False, 0, 0)
    with pytest.raises(ValueError):
        ds.set_date("2021xx11")


@pytest.mark.host_only
def test_dataset_ins_id_merge_and_slots_shuffle(tmp_path):
    f = tmp_path / "d.txt"
    f.write_text("u1 1 10 1 0.5\nu2 1 20 1 1.5\nu1 1 11 1 2.5\nu3 1 30 1 3.5\n")
    ids, score = _slot_vars(("ids", "int64"), ("score", "float32"))
    ds = dist.InMemoryDataset()
    ds.init(batch_size=1, use_var=[ids, score])
    ds.update_settings(merge_size=2)
    assert ds.parse_ins_id and ds.merge_by_lineid
    ds.set_filelist([str(f)])
    ds.load_into_memory()
    ds.global_shuffle()
    assert [(r[0], sorted(r[2][0].tolist())) for r in ds._records] == [("u1", [10, 11])]
    ds2 = dist.InMemoryDataset()
    ds2.init(batch_size=1, use_var=[ids, score])
    ds2.update_settings(parse_ins_id=True, fea_eval=True, candidate_size=10)
    ds2.set_filelist([str(f)])
    ds2.load_into_memory()
    before = [(r[2][0].tolist(), r[2][1].tolist()) for r in ds2._records]
    ds2.slots_shuffle(["ids"])
    after = [(r[2][0].tolist(), r[2][1].tolist()) for r in ds2._records]
    assert [s for _, s in after] == [s for _, s in before]   # the other slot stays
    assert sorted(i for i, _ in after) == sorted(i for i, _ in before)


# ---------------------------------------------------------------- UtilBase

def test_util_base_in_one_process():
    util = fleet.UtilBase()
    with pytest.raises(AttributeError):
        util.all_reduce([1, 2])
    util._set_role_maker(fleet.PaddleCloudRoleMaker(is_collective=True))
    with pytest.warns(UserWarning, match="gloo is not initialized"):
        assert util.all_reduce([1, 2]) == [1, 2]
    with pytest.warns(UserWarning):
        assert util.all_gather(3) == 3
    with pytest.warns(UserWarning):
        util.barrier()
    with pytest.raises(ValueError, match="comm_world"):
        util.barrier("nodes")
    with pytest.raises(ValueError, match="mode"):
        util.all_reduce([1], "avg")
    assert util.get_file_shard(["a", "b", "c"]) == ["a", "b", "c"]
    with pytest.raises(TypeError, match="should be a list"):
        util.get_file_shard("a")
    with pytest.raises(AssertionError):
        util._set_file_system(3)
    util._set_file_system(LocalFS())
    assert isinstance(fleet.util, fleet.UtilBase)


# ---------------------------------------------------------------- distributed save

@pytest.mark.host_only
def test_save_for_auto_inference_and_dist_save(tmp_path):
    from oar.incubate.distributed.utils.io import save, save_for_auto_inference
    net = oar.nn.Linear(2, 3)
    save_for_auto_inference(str(tmp_path / "model"), net)
    assert sorted(os.listdir(tmp_path)) == ["model_dist0.pdattr", "model_dist0.pdparams"]
    params = oar.load(str(tmp_path / "model_dist0.pdparams"))
    assert sorted(params) == sorted([net.weight.name, net.bias.name])
    np.testing.assert_array_equal(params[net.weight.name].numpy(), net.weight.numpy())
    with open(tmp_path / "model_dist0.pdattr", "rb") as f:
        attrs = pickle.load(f)
    # Paddle 3.3.1 writes these for a Linear(2, 3) in one process.
    assert attrs == {net.weight.name: {"process_shape": [1], "process_group": [0], "dims_mapping": [-1, -1]},
                     net.bias.name: {"process_shape": [1], "process_group": [0], "dims_mapping": [-1]}}
    # As Paddle: the prefix is made absolute first, which drops a trailing separator.
    save_for_auto_inference(str(tmp_path / "sub") + os.sep, net)
    assert sorted(n for n in os.listdir(tmp_path) if n.startswith("sub")) == ["sub_dist0.pdattr", "sub_dist0.pdparams"]
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
    save(net.state_dict(), str(tmp_path / "x.pdparams"), gather_to=0, state_type="params", max_grouped_size="1G")
    assert sorted(oar.load(str(tmp_path / "x.pdparams"))) == ["bias", "weight"]
    save(net.state_dict(), str(tmp_path / "y.pdparams"), bogus=1)   # configs oar.save lacks are dropped
    assert sorted(oar.load(str(tmp_path / "y.pdparams"))) == ["bias", "weight"]


# ---------------------------------------------------------------- split

@pytest.mark.host_only
def test_split():
    with pytest.raises(ValueError, match="dynamic graph mode"):
        dist.split(oar.ones([2, 4]), (4, 3), "linear")
    with pytest.raises(AssertionError, match="list or tuple"):
        dist.split(oar.ones([2, 4]), 4, "linear")
    with pytest.raises(AssertionError, match="one of"):
        dist.split(oar.ones([2, 4]), (4, 3), "conv")


@needs_gloo
@pytest.mark.host_only
def test_split_in_a_static_program(tmp_path):
    # fleet.init joins a job: run it as a job of one process.
    all_ok(run_job(tmp_path, 1, """
        from oar.distributed import fleet
        C = oar.nn.initializer.Constant
        oar.enable_static()
        main, start = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, start):
            x = oar.static.data("x", [None, 4], "float32")
            ids = oar.static.data("ids", [None, 2], "int64")
            try:
                dist.split(x, (4, 3), "linear")
            except AssertionError as e:
                assert "fleet.init" in str(e)
            else:
                raise AssertionError("split needs fleet.init")
            fleet.init(is_collective=True)
            y0 = dist.split(x, (4, 3), "linear", axis=0, weight_attr=oar.ParamAttr(initializer=C(0.5)),
                            bias_attr=oar.ParamAttr(initializer=C(0.25)))
            y1 = dist.split(x, (4, 3), "linear", axis=1, weight_attr=oar.ParamAttr(initializer=C(2.0)))
            e = dist.split(ids, (10, 5), "embedding", weight_attr=oar.ParamAttr(initializer=C(1.5)))
            raised = []
            for bad, kw in (((4, 3), dict(axis=2)), ((5, 3), dict(num_partitions=2)),
                            ((4, 4), dict(axis=1, num_partitions=2))):
                try:
                    dist.split(x, bad, "linear", **kw)
                except (ValueError, AssertionError, NotImplementedError) as err:
                    raised.append(type(err).__name__)
            assert raised == ["ValueError", "AssertionError", "NotImplementedError"], raised
        exe = oar.static.Executor()
        exe.run(start)
        xv = np.arange(8, dtype="float32").reshape(2, 4)
        out = exe.run(main, feed={"x": xv, "ids": np.array([[1, 2], [3, 4]])}, fetch_list=[y0, y1, e])
        np.testing.assert_allclose(out[0], xv.sum(1, keepdims=True) * 0.5 + 0.25 + np.zeros((2, 3)))
        np.testing.assert_allclose(out[1], xv.sum(1, keepdims=True) * 2.0 + np.zeros((2, 3)))
        np.testing.assert_allclose(out[2], np.full((2, 2, 5), 1.5))
        oar.disable_static()
        print("ok")
    """))


# ---------------------------------------------------------------- plans

def _parallel(net, plan, mesh, key="mp_config"):
    return dist.parallelize(net, mesh=mesh, config={key: {"parallelize_plan": plan}})[0]


@pytest.mark.parametrize("fmt,pad,k,s", [("NCHW", 1, 3, 1), ("NHWC", 1, 3, 1), ("NCHW", 0, 2, 2),
                                         ("NCHW", 2, 3, 2), ("NCHW", "SAME", 3, 1)])
def test_conv_parallel_one_process_equals_dense(fmt, pad, k, s):
    oar.seed(1)
    conv = oar.nn.Conv2D(2, 3, k, padding=pad, stride=s, data_format=fmt)
    conv.to(dtype="float64")
    x = oar.randn([2, 2, 4, 4] if fmt == "NCHW" else [2, 4, 4, 2]).astype("float64")
    x.stop_gradient = False
    dense = conv(x)
    (dense ** 2).sum().backward()
    ref = [x.grad.numpy().copy(), conv.weight.grad.numpy().copy(), conv.bias.grad.numpy().copy()]
    x.clear_gradient()
    conv.clear_gradients()
    net = _parallel(oar.nn.Sequential(conv), {"0": dist.ConvParallel()}, dist.ProcessMesh([0], dim_names=["mp"]))
    y = net(x)
    supported = isinstance(pad, int) and (s == 1 or (pad == 0 and s == k))
    if supported:
        assert y.placements == [dist.Shard(3 if fmt == "NCHW" else 2)]
    np.testing.assert_allclose(y.numpy(), dense.numpy(), rtol=1e-12)
    (y ** 2).sum().backward()
    for a, b in zip([x.grad.numpy(), net[0].weight.grad.numpy(), net[0].bias.grad.numpy()], ref):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_context_parallel_one_process():
    mesh = dist.ProcessMesh([0], dim_names=["sep"])

    class Attn(oar.nn.Layer):
        def forward(self, q, k, v, backend=None):
            self.backend = backend
            return oar.nn.functional.scaled_dot_product_attention(q, k, v)
    q0 = oar.randn([2, 4, 2, 8]).astype("float64")
    q0.stop_gradient = False
    ref = oar.nn.functional.scaled_dot_product_attention(q0, q0, q0)
    ref.sum().backward()
    gref = q0.grad.numpy().copy()
    q0.clear_gradient()
    attn = Attn()
    dist.ContextParallel("all2all").apply(attn, mesh, None)
    q = dist.shard_tensor(q0, mesh, [dist.Shard(1)])
    out = attn(q, q, q)
    assert out.placements == [dist.Shard(1)]
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-12)
    out.sum().backward()
    # shard_tensor of a leaf is a new leaf (as Paddle's): the gradient lands on it.
    np.testing.assert_allclose(q.grad.numpy(), gref, rtol=1e-10)
    with pytest.raises(AssertionError, match="sequence dimension"):
        attn(*[dist.shard_tensor(q0, mesh, [dist.Replicate()])] * 3)
    p2p = Attn()
    dist.ContextParallel("p2p").apply(p2p, mesh, None)
    p2p(q, q, q)
    assert p2p.backend == "p2p"
    with pytest.raises(AssertionError, match="distributed tensor"):
        p2p(q0, q0, q0)
    with pytest.raises(ValueError, match="'sep'"):
        dist.ContextParallel("all2all").apply(Attn(), dist.ProcessMesh([0], dim_names=["mp"]), None)


def test_prepare_context_parallel_and_cp_config():
    mesh = dist.ProcessMesh([0], dim_names=["sep"])

    class Model(oar.nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = oar.nn.Embedding(10, 4)

        def forward(self, ids):
            return self.emb(ids)
    ids = dist.shard_tensor(oar.arange(8).reshape([1, 8]), mesh, [dist.Replicate()])
    for backend in ("p2p", "all2all"):
        m = Model()
        dense = m(oar.arange(8).reshape([1, 8]))
        m = _parallel(m, {"": dist.PrepareContextParallel(backend)}, mesh, key="cp_config")
        np.testing.assert_allclose(m(ids).numpy(), dense.numpy())
    with pytest.raises(AssertionError, match="backend must be"):
        dist.PrepareContextParallel("ring")
    plan = dist.PrepareContextParallel("all2all")
    m = Model()
    plan.apply(m, mesh, None)
    with pytest.raises(AssertionError, match="distributed tensor"):
        m(oar.arange(8).reshape([1, 8]))
    with pytest.raises(AssertionError, match="input_ids should be"):
        m(dist.shard_tensor(oar.arange(8), mesh, [dist.Replicate()]))


# ---------------------------------------------------------------- two processes

@needs_gloo
@pytest.mark.host_only
def test_two_ranks(tmp_path):
    body = """
        import os, random, warnings
        from oar.distributed import fleet
        from oar.incubate.distributed.utils.io import save
        fleet.init(is_collective=True)
        r = dist.get_rank()
        util = fleet.util
        assert util.all_reduce([1, r + 1], "sum").tolist() == [2, 3]
        assert util.all_reduce(np.array([[r, 5 - r]]), "max").tolist() == [[1, 5]]
        assert util.all_gather({"r": r}) == [{"r": 0}, {"r": 1}]
        assert util.get_file_shard(["a", "b", "c"]) == (["a", "b"] if r == 0 else ["c"])
        util.barrier()
        # ConvParallel over mp = 2: each rank computes its half of the output width.
        mesh = dist.ProcessMesh([0, 1], dim_names=["mp"])
        oar.seed(7)
        conv = oar.nn.Conv2D(2, 3, 3, padding=1)
        x = oar.randn([1, 2, 4, 6])
        x.stop_gradient = False
        dense = conv(x)
        (dense ** 2).sum().backward()
        gx, gw = x.grad.numpy().copy(), conv.weight.grad.numpy().copy()
        x.clear_gradient(); conv.clear_gradients()
        net = oar.nn.Sequential(conv)
        net, _ = dist.parallelize(net, mesh=mesh, config={"mp_config": {"parallelize_plan": {"0": dist.ConvParallel()}}})
        y = net(x)
        assert y.placements == [dist.Shard(3)] and y._local_value().shape == [1, 3, 4, 3]
        np.testing.assert_allclose(y._local_value().numpy(), dense.numpy()[..., 3 * r:3 * r + 3], rtol=1e-5, atol=1e-6)
        (y._local_value() ** 2).sum().backward()
        # The input and the weight are replicated: their gradients (summed over 'mp') are the dense ones.
        np.testing.assert_allclose(x.grad.numpy(), gx, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(net[0].weight.grad.numpy(), gw, rtol=1e-5, atol=1e-5)
        # ContextParallel all2all over sep = 2: heads instead of sequence inside the layer.
        smesh = dist.ProcessMesh([0, 1], dim_names=["sep"])
        attn = oar.nn.Layer()
        attn.forward = lambda q, k, v: oar.nn.functional.scaled_dot_product_attention(q, k, v)
        dist.ContextParallel("all2all").apply(attn, smesh, None)
        oar.seed(3)
        q0 = oar.randn([1, 4, 2, 8])
        ref = oar.nn.functional.scaled_dot_product_attention(q0, q0, q0).numpy()
        q = dist.shard_tensor(q0, smesh, [dist.Shard(1)])
        out = attn(q, q, q)
        assert out.placements == [dist.Shard(1)]
        np.testing.assert_allclose(out._local_value().numpy(), ref[:, 2 * r:2 * r + 2], rtol=1e-5, atol=1e-6)
        # PrepareContextParallel p2p: rank r holds chunks r and 3 - r of the sequence.
        class Ids(oar.nn.Layer):
            def forward(self, ids):
                return ids
        m = Ids()
        dist.PrepareContextParallel("p2p").apply(m, smesh, None)
        got = m(dist.shard_tensor(oar.arange(8).reshape([1, 8]), smesh, [dist.Replicate()]))
        assert got._local_value().numpy().tolist() == ([[0, 1, 6, 7]] if r == 0 else [[2, 3, 4, 5]])
        # global_shuffle over both workers: every record ends on one of them, once.
        path = os.path.join(os.path.dirname(__file__), f"part-{r}.txt")
        with open(path, "w") as f:
            f.write("".join(f"1 {10 * r + i}\\n" for i in range(5)))
        oar.enable_static()
        ids = oar.static.data(name="ids", shape=[-1, 1], dtype="int64")
        oar.disable_static()
        ds = dist.InMemoryDataset()
        ds.init(batch_size=1, use_var=[ids])
        ds.set_filelist([path])
        ds.load_into_memory()
        random.seed(r)
        ds.global_shuffle(fleet)
        assert ds.get_memory_data_size(fleet) == 10
        mine = sorted(int(rec[2][0][0]) for rec in ds._records)
        every = []
        dist.all_gather_object(every, mine)
        assert sorted(every[0] + every[1]) == list(range(5)) + list(range(10, 15))
        print("ok")
    """
    all_ok(run_job(tmp_path, 2, body, timeout=150))


# ---------------------------------------------------------------- distributed.io

# Paddle 3.3.1's save_persistables for an fc(2 -> 3) whose weight is arange(6)/4 and bias
# [-1.5, 0, 2]: one file per variable, and the same streams in name order with filename=.
PADDLE_BIAS = "0000000000000000000000000000000004000000080510030000c0bf0000000000000040"
PADDLE_WEIGHT = ("0000000000000000000000000000000006000000080510021003000000000000803e0000003f0000403f0000803f"
                 "0000a03f")


@pytest.mark.host_only
def test_distributed_io_persistables_are_paddles_files(tmp_path):
    import oar.distributed.io as dio
    w, b = np.arange(6, dtype="float32").reshape(2, 3) / 4, np.array([-1.5, 0, 2], "float32")
    with pytest.raises(AssertionError, match="dynamic graph mode"):
        dio.save_persistables(None, str(tmp_path))
    with pytest.raises(AssertionError, match="static graph mode"):
        dio.load_inference_model_distributed(str(tmp_path), None)
    oar.enable_static()
    scope = oar.static.global_scope()
    try:
        main = oar.static.Program()
        with oar.static.program_guard(main, oar.static.Program()):
            x = oar.static.data("x", [None, 2], "float32")
            y = oar.static.nn.fc(x, 3)
        params = main._parameters()
        wname, bname = sorted(params, key=lambda n: n.endswith("b_0"))
        oar.disable_static()
        params[wname].set_value(w)
        params[bname].set_value(b)
        oar.enable_static()
        exe = oar.static.Executor()
        assert not dio.is_persistable(x)
        dio.save_persistables(exe, str(tmp_path / "each"), main)
        assert (tmp_path / "each" / wname).read_bytes().hex() == PADDLE_WEIGHT
        assert (tmp_path / "each" / bname).read_bytes().hex() == PADDLE_BIAS
        dio.save_persistables(exe, str(tmp_path / "one"), main, filename="all")
        assert (tmp_path / "one" / "all").read_bytes().hex() == PADDLE_BIAS + PADDLE_WEIGHT
        # Paddle's files (other values) load into the scope, where the executor reads them.
        other = tmp_path / "paddle"
        other.mkdir()
        (other / wname).write_bytes(bytes.fromhex(PADDLE_WEIGHT.replace("0000803e", "000080bf")))
        (other / bname).write_bytes(bytes.fromhex(PADDLE_BIAS))
        dio.load_persistables(exe, str(other), main)
        w2 = w.copy()
        w2[0, 1] = -1.0
        out = exe.run(main, feed={"x": np.ones([1, 2], "float32")}, fetch_list=[y])[0]
        np.testing.assert_allclose(out, w2.sum(0, keepdims=True) + b)
        (other / bname).write_bytes(bytes.fromhex(PADDLE_BIAS)[:-4])
        with pytest.raises(ValueError, match="fewer bytes"):
            dio.load_persistables(exe, str(other), main)
        (other / bname).unlink()
        with pytest.raises(ValueError, match="no file for variable"):
            dio.load_persistables(exe, str(other), main)
        # The inference program and its parameters, through load_inference_model_distributed.
        model_dir = tmp_path / "model"
        model_dir.mkdir()
        oar.static.save_to_file(str(model_dir / "__model__"), oar.static.serialize_program([x], [y], program=main))
        dio.save_persistables(exe, str(model_dir), main, filename="params")
        prog, feeds, fetches = dio.load_inference_model_distributed(str(model_dir), exe, params_filename="params")
        assert feeds == ["x"]
        out = exe.run(prog, feed={"x": np.ones([1, 2], "float32")}, fetch_list=fetches)[0]
        # The values saved are the current ones: those loaded into the scope above.
        np.testing.assert_allclose(out, w2.sum(0, keepdims=True) + b)
        with pytest.raises(ValueError, match="no directory"):
            dio.load_inference_model_distributed(str(tmp_path / "none"), exe)
        with pytest.raises(ValueError, match="cannot be None"):
            dio.load_inference_model_distributed(None, exe, model_filename=b"")
        with pytest.raises(TypeError, match="main_program"):
            dio.save_persistables(exe, str(tmp_path), main_program=3)
    finally:
        for n in list(scope._vars):
            if n.startswith(wname.split(".")[0] + "."):
                scope._vars.pop(n)
        oar.disable_static()
