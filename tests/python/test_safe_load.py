"""oar.load is safe by default: every file real Paddle writes (vision zoo weights, optimizer
states, any object) loads, and a pickle that would run code is refused before it runs."""
import collections
import copyreg
import importlib.util
import io
import pickle
import shutil
import struct
import subprocess
import sys
import tarfile
import textwrap

import numpy as np
import pytest

import oar
from oar.framework import safe_pickle

HAS_PADDLE = importlib.util.find_spec("paddle") is not None

# Runs in a subprocess with real Paddle: writes every file into argv[1], and reference.pkl
# ({file name: the saved object with each tensor as ('<tensor>', name, dtype, array)}).
PADDLE_WRITER = textwrap.dedent("""
    import os, pickle, sys
    import numpy as np
    import paddle
    from paddle.vision import models

    out = sys.argv[1]
    paddle.set_device("cpu")
    paddle.seed(5)
    np.random.seed(5)
    reference = {}

    def ref(obj):
        if isinstance(obj, paddle.Tensor):
            arr = np.array(obj)
            if obj.dtype == paddle.bfloat16:
                arr = arr.view(np.uint16)
            return ("<tensor>", obj.name, str(obj.dtype).split(".")[-1], arr)
        if isinstance(obj, dict):
            return type(obj)((k, ref(v)) for k, v in obj.items())
        if type(obj) in (list, tuple):
            return type(obj)(ref(v) for v in obj)
        return obj

    def save(obj, name, protocols=(2, 3, 4)):
        for protocol in protocols:
            paddle.save(obj, os.path.join(out, f"{name}.p{protocol}"), protocol=protocol)
            reference[f"{name}.p{protocol}"] = ref(obj)

    zoo = {"lenet": models.LeNet(), "resnet18": models.resnet18(num_classes=10),
           "mobilenet_v2": models.mobilenet_v2(scale=0.5, num_classes=10),
           # without its 400 MB classifier (num_classes=0); batch norm for the running stats
           "vgg11": models.vgg11(batch_norm=True, num_classes=0)}
    for name, net in zoo.items():
        save(net.state_dict(), name + ".pdparams")
    save(models.LeNet().to(dtype="bfloat16").state_dict(), "lenet_bf16.pdparams", (4,))

    def trained(make_opt, scheduler):
        net = models.LeNet()
        opt = make_opt(net.parameters())
        for _ in range(3):
            loss = net(paddle.randn([2, 1, 28, 28])).square().mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            if isinstance(scheduler, paddle.optimizer.lr.ReduceOnPlateau):
                scheduler.step(loss)
            else:
                scheduler.step()
        return opt.state_dict()

    lr = paddle.optimizer.lr
    step = lr.StepDecay(0.01, step_size=2, gamma=0.5)
    save(trained(lambda p: paddle.optimizer.Adam(step, parameters=p), step), "adam.pdopt")
    warm = lr.LinearWarmup(lr.CosineAnnealingDecay(0.01, T_max=10), warmup_steps=2, start_lr=0.0,
                           end_lr=0.01)
    save(trained(lambda p: paddle.optimizer.AdamW(warm, parameters=p, weight_decay=0.01), warm),
         "adamw.pdopt")
    plateau = lr.ReduceOnPlateau(0.01, patience=0)
    save(trained(lambda p: paddle.optimizer.Momentum(plateau, momentum=0.9, parameters=p,
                                                     use_nesterov=True), plateau), "momentum.pdopt")
    piece = lr.PiecewiseDecay([1, 2], [0.1, 0.05, 0.01])
    save(trained(lambda p: paddle.optimizer.Momentum(piece, parameters=p), piece), "momentum_piecewise.pdopt")

    mixed = [paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3)),
             {"step": 3, "tag": "run-1", "lr": np.float32(0.5), "best": np.float64(0.25),
              "ids": (np.int64(7), paddle.to_tensor([1, 2], dtype="int64")),
              "nested": [{"t": paddle.to_tensor(2.5, dtype="float64")}, None, True, 1.5, 2j],
              "half": paddle.to_tensor([0.5, 2.0], dtype="float16")},
             np.arange(3, dtype=np.int32)]
    save(mixed, "mixed.pd")
    # A DenseTensor is pickled as eval('data', {'data': array}).
    tensor = paddle.to_tensor(np.arange(4, dtype="float32"))
    paddle.save({"dense": tensor.get_tensor(), "n": 1}, os.path.join(out, "dense.pd"))
    reference["dense.pd"] = {"dense": np.arange(4, dtype="float32"), "n": 1}

    # Static mode: paddle.static.save (static.pdparams + static.pdopt) and paddle.save of a
    # program's state dict: dicts of bare arrays.
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        loss = paddle.mean(paddle.static.nn.fc(paddle.static.data("x", [None, 4]), 3))
        paddle.optimizer.Adam(0.01).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    exe.run(main, feed={"x": np.ones((2, 4), "float32")}, fetch_list=[loss])
    paddle.static.save(main, os.path.join(out, "static"))
    reference["static"] = {k: np.array(v) for k, v in main.state_dict().items()}
    paddle.save(main.state_dict(), os.path.join(out, "static_state.pdparams"))
    reference["static_state.pdparams"] = reference["static"]
    with open(os.path.join(out, "reference.pkl"), "wb") as f:
        pickle.dump(reference, f)
""")


@pytest.fixture(scope="module")
def paddle_files(tmp_path_factory):
    if not HAS_PADDLE:
        pytest.skip("real Paddle is not installed")
    out = tmp_path_factory.mktemp("paddle_files")
    done = subprocess.run([sys.executable, "-c", PADDLE_WRITER, str(out)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    with open(out / "reference.pkl", "rb") as f:
        yield out, pickle.load(f)  # written just now by the script above: trusted
    shutil.rmtree(out)  # ~300 MB


def assert_matches(got, want, where):
    """got (from oar.load) holds what want (the reference) describes."""
    if type(want) is tuple and len(want) == 4 and want[0] == "<tensor>":
        _, name, dtype, array = want
        assert isinstance(got, oar.Tensor), where
        assert got.name == name and str(got.dtype).split(".")[-1] == dtype, where
        assert list(got.shape) == list(array.shape), where
        np.testing.assert_array_equal(got.numpy(), array, err_msg=where)
    elif isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), where  # Paddle saves state dicts as dict
        for key in want:
            assert_matches(got[key], want[key], f"{where}[{key!r}]")
    elif type(want) in (list, tuple):
        assert type(got) is type(want) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            assert_matches(g, w, f"{where}[{i}]")
    elif isinstance(want, np.ndarray):
        assert type(got) is np.ndarray and got.dtype == want.dtype, where
        np.testing.assert_array_equal(got, want, err_msg=where)
    else:
        assert type(got) is type(want) and got == want, where


def test_every_paddle_file_loads_safely(paddle_files):
    out, reference = paddle_files
    assert len(reference) == 31
    for name, want in reference.items():
        if not name[-1].isdigit():  # the files below
            continue
        with open(out / name, "rb") as f:
            assert f.read(2) == bytes([0x80, int(name[-1])])  # the protocol asked for
        got = oar.load(str(out / name))  # weights_only=True: the default
        assert_matches(got, want, name)


def test_paddle_dense_tensor_loads_without_eval(paddle_files):
    out, _ = paddle_files
    got = oar.load(str(out / "dense.pd"), return_numpy=True)
    np.testing.assert_array_equal(got["dense"], np.arange(4, dtype=np.float32))
    assert got["n"] == 1


def test_paddle_static_mode_files_load_safely(paddle_files):
    out, reference = paddle_files
    want = reference["static"]  # parameters and Adam's states
    assert_matches(oar.load(str(out / "static_state.pdparams"), return_numpy=True), want, "state")
    params = oar.load(str(out / "static.pdparams"), return_numpy=True)
    states = oar.load(str(out / "static.pdopt"), return_numpy=True)
    assert sorted(params) == ["fc_0.b_0", "fc_0.w_0"] and sorted({**params, **states}) == sorted(want)
    for key, value in {**params, **states}.items():
        assert_matches(value, want[key], key)


def test_paddle_files_load_through_model_and_optimizer(paddle_files):
    out, _ = paddle_files
    net = oar.vision.models.resnet18(num_classes=10)
    missing, unexpected = net.set_state_dict(oar.load(str(out / "resnet18.pdparams.p2")))
    assert not missing and not unexpected
    # Model.load reads <path>.pdparams and <path>.pdopt through the same safe loader
    (out / "lenet.pdparams").write_bytes((out / "lenet.pdparams.p3").read_bytes())
    (out / "lenet.pdopt").write_bytes((out / "adam.pdopt.p3").read_bytes())
    lenet = oar.vision.models.LeNet()
    model = oar.Model(lenet)
    model.prepare(oar.optimizer.Adam(parameters=lenet.parameters()))
    model.load(str(out / "lenet"))
    want = oar.load(str(out / "lenet.pdparams.p3"))
    for key, value in lenet.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), want[key].numpy())


# ------------------------------------------------------------------ formats outside Paddle's zoo


def test_protocol_5_and_numpy_1_names(tmp_path):
    obj = {"w": np.arange(6, dtype=np.float32).reshape(2, 3), "f": np.asfortranarray(np.ones((2, 2))),
           "s": np.float16(1.5), "od": collections.OrderedDict(a=[1, (2, 3)], b={4, 5}),
           "misc": [frozenset([1]), bytearray(b"ab"), b"cd", 2j, slice(1, 3), range(4)]}
    for protocol in (2, 3, 4, 5):
        data = pickle.dumps(obj, protocol=protocol)
        back = oar.load(io.BytesIO(data), return_numpy=True)
        assert pickle.dumps(back, protocol=4) == pickle.dumps(pickle.loads(data), protocol=4)
        if protocol < 4:  # NumPy 1 wrote numpy.core.*: its files load under NumPy 2 too
            old = data.replace(b"numpy._core", b"numpy.core")
            assert b"numpy.core.multiarray" in old
            np.testing.assert_array_equal(oar.load(io.BytesIO(old), return_numpy=True)["w"], obj["w"])


def test_crafted_dtype_flags_are_refused(tmp_path):
    data = pickle.dumps(np.arange(3.0), protocol=2)
    flags = b"J\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00t"  # (..., -1, -1, flags=0) of the dtype
    assert data.count(flags) == 1
    with pytest.raises(pickle.UnpicklingError, match="flags its type never has"):
        oar.load(io.BytesIO(data.replace(flags, flags[:-2] + b"\x01t")))  # ITEM_REFCOUNT
    with pytest.raises(pickle.UnpicklingError, match="structured NumPy dtype|dtype record of an unexpected form"):
        oar.load(io.BytesIO(pickle.dumps(np.zeros(2, [("a", "f4")]))))


def test_malformed_dtype_states_are_refused_before_numpy_sees_them():
    """atheris found it: a dtype state of 6 items with an int where the subarray goes crashes the
    interpreter inside NumPy's dtype __setstate__ (a segfault, not an exception)."""
    data = pickle.dumps({"w": np.ones(3, np.float32)}, protocol=4)
    good = b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00t"  # (..., None, None, None, -1, -1, 0)
    assert good in data
    bad = data.replace(good, b"M\x4e\x4eJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00t")  # 20046 for the 3 Nones
    code = ("import io, sys, oar\n"
            "try:\n    oar.load(io.BytesIO(sys.stdin.buffer.read()))\n"
            "except ValueError as e:\n    print('refused:', e)\n")
    run = subprocess.run([sys.executable, "-c", code], input=bad, capture_output=True, timeout=120)
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert b"dtype record of an unexpected form" in run.stdout


# --------------------------------------------------------------------------- malicious pickles


def _text(s):
    data = s.encode()
    return b"X" + struct.pack("<I", len(data)) + data  # BINUNICODE


def _short(s):
    data = s.encode()
    return b"\x8c" + bytes([len(data)]) + data  # SHORT_BINUNICODE


class Popen:
    """Pickles as subprocess.Popen([...]): unpickling it starts the command."""

    def __init__(self, argv):
        self.argv = argv

    def __reduce__(self):
        return subprocess.Popen, (self.argv,)


class Point:  # a class of ours: weights_only=False loads it
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)


def _payloads(marker):
    """name -> (pickle bytes that would create marker, the global the refusal names)."""
    touch = f"touch {marker}"
    return {
        "GLOBAL": (b"\x80\x02cos\nsystem\n" + _text(touch) + b"\x85R.", "os.system"),
        "GLOBAL protocol 0": (b"cos\nsystem\n(V" + touch.encode() + b"\ntR.", "os.system"),
        "INST": (b"(V" + touch.encode() + b"\nios\nsystem\n.", "os.system"),
        "STACK_GLOBAL": (b"\x80\x04" + _short("os") + _short("system") + b"\x93" + _short(touch)
                         + b"\x85R.", "os.system"),
        "eval": (b"\x80\x02cbuiltins\neval\n" + _text(f"__import__('os').system('{touch}')")
                 + b"\x85R.", "builtins.eval"),
        "eval of Paddle's form": (b"\x80\x02c__builtin__\neval\n" + _text("data") + b"}" + _text("data")
                                  + b"cos\nsystem\n" + b"s\x86R.", "os.system"),
        "Popen": (pickle.dumps(Popen(["touch", str(marker)]), protocol=4), "subprocess.Popen"),
        "Counter": (pickle.dumps({"w": collections.Counter(a=1)}, protocol=4), "collections.Counter"),
        "our class": (pickle.dumps([Point(1, 2)], protocol=2), ".Point"),
        "getattr": (b"\x80\x02cbuiltins\ngetattr\n" + b"cbuiltins\nobject\n" + _text("__subclasses__")
                    + b"\x86R.", "builtins.getattr"),
    }


@pytest.mark.parametrize("name", list(_payloads("m")))
def test_malicious_pickle_is_refused_without_side_effect(tmp_path, name):
    marker = tmp_path / "marker"
    data, refused = _payloads(marker)[name]
    path = tmp_path / "evil.pdparams"
    path.write_bytes(data)
    for source in (str(path), io.BytesIO(data)):
        with pytest.raises(pickle.UnpicklingError) as err:
            oar.load(source)
        message = str(err.value)
        assert refused in message and "could run code" in message, message
        assert "weights_only=False" in message and "corrupted" not in message, message
        assert isinstance(err.value, ValueError)  # as every file oar.load can't load
    assert not marker.exists()


@pytest.mark.parametrize("opcode,size", [(b"\x82", 1), (b"\x83", 2), (b"\x84", 4)])
def test_extension_codes_are_checked_even_when_cached(tmp_path, opcode, size):
    marker = tmp_path / "marker"
    code = {1: 0xF1, 2: 0xF1F2, 4: 0x7EF1F2F3}[size]
    copyreg.add_extension("os", "system", code)
    try:
        ext = b"\x80\x02" + opcode + code.to_bytes(size, "little")
        # The C unpickler then serves this code from copyreg's cache without asking find_class.
        assert pickle.loads(ext + b".") is __import__("os").system  # fills the cache, calls nothing
        for payload in (ext + _text(f"touch {marker}") + b"\x85R.", ext + b"."):
            with pytest.raises(pickle.UnpicklingError, match=r"'os\.system'.*could run code"):
                oar.load(io.BytesIO(payload))
    finally:
        copyreg.remove_extension("os", "system", code)
    assert not marker.exists()
    with pytest.raises(ValueError, match="corrupted"):  # an unregistered code: a damaged file
        oar.load(io.BytesIO(b"\x80\x02\x82\xf1."))


@pytest.mark.parametrize("data", [b"\x80\x02" + _text("evil") + b"Q.", b"Pevil\n."])
def test_persistent_ids_are_refused(data):
    with pytest.raises(pickle.UnpicklingError, match="persistent id.*could run code"):
        oar.load(io.BytesIO(data))


def test_weights_only_false_loads_anything(tmp_path):
    path = tmp_path / "objects.pd"
    oar.save({"point": Point(1, [2]), "t": oar.to_tensor([1.0, 2.0])}, str(path))
    with pytest.raises(pickle.UnpicklingError, match=r"Point'.*weights_only=False"):
        oar.load(str(path))
    back = oar.load(str(path), weights_only=False)
    assert back["point"] == Point(1, [2])
    np.testing.assert_array_equal(back["t"].numpy(), [1.0, 2.0])
    with pytest.raises(pickle.UnpicklingError, match="Point"):
        oar.load(str(path), weights_only=True)


def test_cifar_archive_is_loaded_safely(tmp_path):
    marker = tmp_path / "marker"
    path = tmp_path / "cifar-10-python.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        blob = _payloads(marker)["Popen"][0]
        info = tarfile.TarInfo("cifar-10-batches-py/data_batch_1")
        info.size = len(blob)
        tar.addfile(info, io.BytesIO(blob))
    with pytest.raises(ValueError, match=r"subprocess\.Popen.*could run code"):
        oar.vision.datasets.Cifar10(data_file=str(path), mode="train")
    assert not marker.exists()


def test_safe_pickle_module_alone():
    assert safe_pickle.load(io.BytesIO(pickle.dumps({"a": np.ones(2)}))).keys() == {"a"}
    with pytest.raises(safe_pickle.UnsafePickleError) as err:
        safe_pickle.load(io.BytesIO(pickle.dumps(print)))
    assert err.value.what == "the global 'builtins.print'"
