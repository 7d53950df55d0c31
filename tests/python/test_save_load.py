"""oar.save / oar.load: paddle.save's file format, atomic writes, clear errors on damaged files."""
import collections
import io
import os
import pickle
import stat

import numpy as np
import pytest

import oar
from oar.framework import io as ckpt_io
from oar.framework.parameter import Parameter as OarParameter

# The exact bytes paddle.save (Paddle 3.3.1, numpy 2.x) wrote for
#   {'weight': Tensor(arange(6).reshape(2, 3), name='linear_0.w_0'),
#    'bias': Tensor([0.5, -1, 2], name='linear_0.b_0')}   (float32, protocol 4)
PADDLE_LINEAR_PDPARAMS = bytes.fromhex(
    "80049525010000000000007d94288c06776569676874948c166e756d70792e5f636f72652e6d756c74696172"
    "726179948c0c5f7265636f6e7374727563749493948c056e756d7079948c076e6461727261799493944b0085"
    "944301629487945294284b014b024b03869468058c0564747970659493948c02663494898887945294284b03"
    "8c013c944e4e4e4affffffff4affffffff4b00749462894318000000000000803f0000004000004040000080"
    "400000a040947494628c046269617394680468074b008594680987945294284b014b038594681189430c0000"
    "003f000080bf00000040947494628c1b53747275637475726564546f506172616d657465724e616d65404094"
    "7d942868018c0c6c696e6561725f302e775f309468168c0c6c696e6561725f302e625f309475752e")
LINEAR_W = np.arange(6, dtype=np.float32).reshape(2, 3)
LINEAR_B = np.array([0.5, -1, 2], np.float32)


def Parameter(data, name, trainable=True):
    """oar's Parameter (a Tensor subclass with .name, .trainable) holding data."""
    return OarParameter(oar.to_tensor(data), name=name, trainable=trainable)


class Point:  # a plain Python object inside a checkpoint
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)


class FailsToPickle:
    def __reduce__(self):
        raise RuntimeError("pickling refused midway")


def named(array, name, dtype=None):
    t = oar.to_tensor(array, dtype=dtype)
    t.name = name
    return t


def values(t):
    """A tensor's data as NumPy, bfloat16 as its uint16 bits."""
    return t.numpy()


def assert_same_tensor(got, want_array, dtype=None):
    assert isinstance(got, oar.Tensor)
    if dtype is not None:
        assert got.dtype == dtype
    assert list(got.shape) == list(want_array.shape)
    np.testing.assert_array_equal(values(got), want_array)


def listing(directory):
    return sorted(os.listdir(directory))


# ---------------------------------------------------------------------------------- format


def test_loads_file_written_by_paddle():
    buf = io.BytesIO(PADDLE_LINEAR_PDPARAMS)
    sd = oar.load(buf)
    assert list(sd) == ["weight", "bias"]
    assert_same_tensor(sd["weight"], LINEAR_W, oar.float32)
    assert_same_tensor(sd["bias"], LINEAR_B, oar.float32)
    assert sd["weight"].name == "linear_0.w_0" and sd["bias"].name == "linear_0.b_0"
    table = oar.load(io.BytesIO(PADDLE_LINEAR_PDPARAMS), keep_name_table=True)
    assert table[ckpt_io.NAME_TABLE_KEY] == {"weight": "linear_0.w_0", "bias": "linear_0.b_0"}
    arrays = oar.load(io.BytesIO(PADDLE_LINEAR_PDPARAMS), return_numpy=True)
    assert isinstance(arrays["weight"], np.ndarray)
    np.testing.assert_array_equal(arrays["weight"], LINEAR_W)


def test_writes_the_bytes_paddle_writes(tmp_path):
    sd = {"weight": Parameter(LINEAR_W, "linear_0.w_0"), "bias": Parameter(LINEAR_B, "linear_0.b_0")}
    path = tmp_path / "linear.pdparams"
    oar.save(sd, str(path))
    assert path.read_bytes() == PADDLE_LINEAR_PDPARAMS


def test_state_dict_layout(tmp_path):
    path = str(tmp_path / "m.pdparams")
    oar.save({"fc.weight": named(LINEAR_W, "linear_3.w_0"), "fc.bias": named(LINEAR_B, "linear_3.b_0")}, path)
    with open(path, "rb") as f:
        raw = pickle.load(f)
    assert type(raw) is dict and list(raw) == ["fc.weight", "fc.bias", "StructuredToParameterName@@"]
    assert raw["StructuredToParameterName@@"] == {"fc.weight": "linear_3.w_0", "fc.bias": "linear_3.b_0"}
    assert type(raw["fc.weight"]) is np.ndarray
    np.testing.assert_array_equal(raw["fc.weight"], LINEAR_W)
    with open(path, "rb") as f:
        assert f.read(2) == b"\x80\x04"  # pickle protocol 4, Paddle's default


def test_plain_tensor_is_a_name_array_tuple(tmp_path):
    path = str(tmp_path / "t.pd")
    oar.save(named([1.0, 2.0], "x_0"), path)
    with open(path, "rb") as f:
        raw = pickle.load(f)
    assert type(raw) is tuple and raw[0] == "x_0"
    np.testing.assert_array_equal(raw[1], np.array([1.0, 2.0], np.float32))
    t = oar.load(path)
    assert_same_tensor(t, np.array([1.0, 2.0], np.float32), oar.float32)
    assert t.name == "x_0"
    arr = oar.load(path, return_numpy=True)
    assert type(arr) is np.ndarray and arr.dtype == np.float32


@pytest.mark.parametrize("dtype,data", [
    ("float32", [[1.5, -2.0], [3.25, 0.0]]),
    ("float64", [1e-300, -2.5, np.pi]),
    ("float16", [0.5, -65504.0, 1e-3]),
    ("bfloat16", [1.5, -3.0, 1e30]),
    ("int8", [-128, 127]),
    ("int16", [-32768, 32767]),
    ("int32", [-(2**31), 2**31 - 1]),
    ("int64", [-(2**63), 2**63 - 1]),
    ("uint8", [0, 255]),
    ("bool", [True, False, True]),
    ("complex64", [1 + 2j, -3j]),
    ("complex128", [1e-200 + 2j]),
])
def test_every_dtype_round_trips(tmp_path, dtype, data):
    t = oar.to_tensor(data, dtype=dtype)
    scalar = oar.to_tensor(np.asarray(data).reshape(-1)[0].item(), dtype=dtype)
    path = str(tmp_path / "d.pdparams")
    oar.save({"t": t, "scalar": scalar}, path)
    back = oar.load(path)
    for key, src in (("t", t), ("scalar", scalar)):
        assert back[key].dtype == src.dtype
        assert list(back[key].shape) == list(src.shape)
        np.testing.assert_array_equal(values(back[key]), values(src))
    assert back["scalar"].ndim == 0
    # bfloat16 is stored as its uint16 bits, as Paddle stores it
    with open(path, "rb") as f:
        raw = pickle.load(f)
    want = np.uint16 if dtype == "bfloat16" else np.dtype(dtype if dtype != "bool" else np.bool_)
    assert raw["t"].dtype == want


def test_shapes_views_and_empty(tmp_path):
    base = oar.to_tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    view = base.transpose([2, 0, 1])  # a non-contiguous view
    cases = {"view": view, "empty": oar.zeros([0, 3]), "zero_d": oar.to_tensor(7, dtype="int64"),
             "big": oar.to_tensor(np.random.RandomState(0).randn(64, 33).astype(np.float64))}
    path = str(tmp_path / "s.pdparams")
    oar.save(cases, path)
    back = oar.load(path)
    for key, src in cases.items():
        assert_same_tensor(back[key], src.numpy(), src.dtype)


def test_parameters_keep_their_names(tmp_path):
    w = Parameter(LINEAR_W, "linear_0.w_0")
    frozen = Parameter(LINEAR_B, "linear_0.b_0", trainable=False)
    assert isinstance(w, oar.Tensor) and type(w) is not oar.Tensor and w.stop_gradient is False
    path = str(tmp_path / "p.pdparams")
    oar.save({"weight": w, "bias": frozen}, path)
    back = oar.load(path)
    assert back["weight"].name == "linear_0.w_0" and back["bias"].name == "linear_0.b_0"
    assert back["weight"].stop_gradient is True  # Paddle also loads plain tensors
    np.testing.assert_array_equal(back["weight"].numpy(), LINEAR_W)
    # inside a nested (non state-dict) object too
    oar.save({"params": [w, frozen], "step": 3}, path)
    back = oar.load(path)
    assert [p.name for p in back["params"]] == ["linear_0.w_0", "linear_0.b_0"]
    assert back["step"] == 3


def test_layer_state_dicts_round_trip(tmp_path):
    oar.seed(3)
    for make in (lambda: oar.nn.Linear(4, 3), lambda: oar.nn.Conv2D(2, 3, 3),
                 lambda: oar.nn.BatchNorm2D(3)):
        layer = make()
        sd = layer.state_dict()
        path = str(tmp_path / "layer.pdparams")
        oar.save(sd, path)
        back = oar.load(path)
        assert list(back) == list(sd)
        for key, value in sd.items():
            assert back[key].name == value.name and back[key].dtype == value.dtype
            np.testing.assert_array_equal(back[key].numpy(), value.numpy())
        fresh = make()
        missing, unexpected = fresh.set_state_dict(back)
        assert missing == [] and unexpected == []
        for key, value in fresh.state_dict().items():
            np.testing.assert_array_equal(value.numpy(), sd[key].numpy())


def test_optimizer_state_dict(tmp_path):
    state = {
        "linear_0.w_0_moment1_0": named(np.full((2, 3), 0.1, np.float32), "linear_0.w_0_moment1_0"),
        "linear_0.w_0_beta1_pow_acc_0": named(np.array([0.81], np.float32), "linear_0.w_0_beta1_pow_acc_0"),
        "LR_Scheduler": {"last_epoch": 1, "last_lr": 0.1, "milestones": [2, 4], "nested": {"gamma": 0.5}},
        "master_weights": {},
    }
    path = str(tmp_path / "opt.pdopt")
    oar.save(state, path)
    with open(path, "rb") as f:
        raw = pickle.load(f)
    assert "StructuredToParameterName@@" in raw  # still written as a state dict
    back = oar.load(path)
    assert list(back) == list(state)
    assert back["LR_Scheduler"] == state["LR_Scheduler"]
    assert back["master_weights"] == {}
    for key in ("linear_0.w_0_moment1_0", "linear_0.w_0_beta1_pow_acc_0"):
        assert_same_tensor(back[key], state[key].numpy(), oar.float32)
        assert back[key].name == key


def test_nested_objects(tmp_path):
    t = named([1.0, 2.0], "a")
    obj = {"list": [t, 1, "x", None], "tuple": (t, 2.5), "dict": {"inner": {"t": t}},
           "od": collections.OrderedDict(k=t), "set": {1, 2}, "point": Point(1, [2]),
           "np": np.arange(3)}
    path = str(tmp_path / "n.pd")
    oar.save(obj, path)
    back = oar.load(path, weights_only=False)  # Point: a class, refused by default
    for got in (back["list"][0], back["tuple"][0], back["dict"]["inner"]["t"], back["od"]["k"]):
        assert_same_tensor(got, np.array([1.0, 2.0], np.float32), oar.float32)
    assert back["list"][1:] == [1, "x", None] and back["tuple"][1] == 2.5
    assert type(back["tuple"]) is tuple and type(back["od"]) is collections.OrderedDict
    assert back["set"] == {1, 2} and back["point"] == Point(1, [2])
    # as in Paddle: when (name, array) tuples are present, bare arrays stay arrays
    assert type(back["np"]) is np.ndarray
    # without any tensor, bare arrays become tensors (Paddle 2.0 files)
    oar.save({"np": np.arange(3), "n": 1}, path)
    back = oar.load(path)
    assert_same_tensor(back["np"], np.arange(3), oar.int64)
    assert type(oar.load(path, return_numpy=True)["np"]) is np.ndarray
    oar.save(3.5, path)
    assert oar.load(path) == 3.5


def test_bytesio_and_pathlike(tmp_path):
    buf = io.BytesIO()
    oar.save({"w": named(LINEAR_W, "w")}, buf)
    oar.save(named(LINEAR_B, "b"), buf)  # two objects one after the other, as Paddle allows
    buf.seek(0)
    np.testing.assert_array_equal(oar.load(buf)["w"].numpy(), LINEAR_W)
    np.testing.assert_array_equal(oar.load(buf).numpy(), LINEAR_B)
    path = tmp_path / "p.pdparams"  # os.PathLike (Paddle 3.3.1 takes str only)
    oar.save({"w": named(LINEAR_W, "w")}, path)
    np.testing.assert_array_equal(oar.load(path)["w"].numpy(), LINEAR_W)


def test_creates_directories_and_honours_umask(tmp_path):
    path = tmp_path / "a" / "b" / "model.pdparams"
    oar.save({"w": named(LINEAR_W, "w")}, str(path))
    assert path.is_file()
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    assert listing(path.parent) == ["model.pdparams"]


def test_protocols_and_big_array_split(tmp_path, monkeypatch):
    t = named(np.arange(10, dtype=np.float32).reshape(2, 5), "w")
    path = str(tmp_path / "p.pdparams")
    for protocol in (2, 3, 4):
        oar.save({"w": t}, path, protocol=protocol)
        with open(path, "rb") as f:
            assert f.read(2) == bytes([0x80, protocol])
        np.testing.assert_array_equal(oar.load(path)["w"].numpy(), t.numpy())
    # Protocols 2/3 cut arrays over 1 GiB into parts; shrink the limit to see it.
    monkeypatch.setattr(ckpt_io, "_MAX_PART_BYTES", 16)  # 4 float32 per part
    oar.save({"w": t, "b": named([1.0], "b")}, path, protocol=2)
    with open(path, "rb") as f:
        raw = pickle.load(f)
    assert raw[ckpt_io.BIG_PARAM_KEY] == {"w": {"OriginShape": (2, 5), "slices": ["w@@.0", "w@@.1", "w@@.2"]}}
    assert "w" not in raw and raw["w@@.2"].shape == (2,)
    back = oar.load(path)
    assert list(back["w"].shape) == [2, 5] and back["w"].name == "w"
    np.testing.assert_array_equal(back["w"].numpy(), t.numpy())
    oar.save({"w": t}, path, protocol=4)  # protocol 4 never splits
    with open(path, "rb") as f:
        assert ckpt_io.BIG_PARAM_KEY not in pickle.load(f)


# --------------------------------------------------------------------------------- atomicity


def test_failed_save_keeps_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "model.pdparams"
    oar.save({"w": named(LINEAR_W, "w")}, str(path))
    before = path.read_bytes()
    big = named(np.ones((256, 256), np.float32), "big")  # some bytes are written before the failure
    with pytest.raises(RuntimeError, match="pickling refused midway"):
        oar.save([big, big + 1, FailsToPickle()], str(path))
    assert path.read_bytes() == before
    assert listing(tmp_path) == ["model.pdparams"]
    np.testing.assert_array_equal(oar.load(str(path))["w"].numpy(), LINEAR_W)


def test_interrupted_write_keeps_old_file(tmp_path, monkeypatch):
    path = tmp_path / "model.pdparams"
    oar.save({"w": named(LINEAR_W, "w")}, str(path))
    before = path.read_bytes()

    def no_fsync(fd):
        raise OSError(5, "simulated I/O error")
    monkeypatch.setattr(ckpt_io.os, "fsync", no_fsync)
    with pytest.raises(OSError, match="simulated"):
        oar.save({"w": named(LINEAR_B, "w")}, str(path))
    assert path.read_bytes() == before and listing(tmp_path) == ["model.pdparams"]


def test_save_replaces_existing_file_and_writes_through_symlink(tmp_path):
    target = tmp_path / "real.pdparams"
    link = tmp_path / "link.pdparams"
    oar.save({"w": named(LINEAR_W, "w")}, str(target))
    link.symlink_to(target)
    oar.save({"w": named(LINEAR_B, "w")}, str(link))
    assert link.is_symlink()
    np.testing.assert_array_equal(oar.load(str(target))["w"].numpy(), LINEAR_B)


# ------------------------------------------------------------------------------ bad files


def test_missing_file(tmp_path):
    path = str(tmp_path / "nope.pdparams")
    # Paddle raises ValueError; oar's error is also a FileNotFoundError
    with pytest.raises(ValueError, match="nope.pdparams"):
        oar.load(path)
    with pytest.raises(FileNotFoundError):
        oar.load(path)
    with pytest.raises(ValueError, match="is a directory"):
        oar.load(str(tmp_path))


@pytest.mark.parametrize("payload", ["state_dict", "nested", "tensor"])
def test_truncated_file_always_raises_value_error(tmp_path, payload):
    obj = {"state_dict": {"w": named(LINEAR_W, "linear_0.w_0"), "b": named(LINEAR_B, "linear_0.b_0")},
           "nested": [named(LINEAR_W, "w"), {"k": (1, "x", named(LINEAR_B, "b"))}],
           "tensor": named(np.arange(40, dtype=np.float64), "t")}[payload]
    full = tmp_path / "full.pd"
    oar.save(obj, str(full))
    raw = full.read_bytes()
    cut = tmp_path / "cut.pd"
    for end in range(len(raw)):  # every offset: the files are a few hundred bytes
        cut.write_bytes(raw[:end])
        with pytest.raises(ValueError, match="cut.pd") as err:
            oar.load(str(cut))
        assert "truncated" in str(err.value) or "corrupted" in str(err.value)


def test_corrupted_files(tmp_path):
    path = tmp_path / "bad.pdparams"
    for content in (b"hello world, not a pickle", b"\x80\x04\x95garbage", b"\x00" * 64,
                    b"PK\x03\x04" + b"\x00" * 40):
        path.write_bytes(content)
        with pytest.raises(ValueError, match="bad.pdparams"):
            oar.load(str(path))
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="empty or truncated"):
        oar.load(str(path))


# A flip in an array's dtype flags makes NumPy report its own "get_clear_loop" error when that
# array is freed (it refuses to treat the numbers as references); load has raised by then.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_flipped_bytes_never_crash(tmp_path):
    oar.save({"w": named(LINEAR_W, "w")}, str(tmp_path / "good.pd"))
    raw = (tmp_path / "good.pd").read_bytes()
    path = tmp_path / "flip.pd"
    rng = np.random.RandomState(0)
    failures = 0
    for pos in range(len(raw)):
        data = bytearray(raw)
        data[pos] ^= int(rng.randint(1, 256))
        path.write_bytes(bytes(data))
        try:
            oar.load(str(path))  # a flip in the numbers (or one that still parses) loads
        except ValueError as e:
            assert "flip.pd" in str(e)
            failures += 1
    assert failures > len(raw) // 2  # most of the file is structure, not numbers


# ---------------------------------------------------------------------------- bad arguments


def test_bad_arguments(tmp_path):
    t = named([1.0], "t")
    path = str(tmp_path / "x.pd")
    with pytest.raises(ValueError, match="protocol"):
        oar.save(t, path, protocol=5)
    with pytest.raises(ValueError, match="protocol"):
        oar.save({"t": t}, path, protocol=1)
    with pytest.raises(ValueError, match="protocol"):
        oar.save(t, path, protocol=4.0)
    with pytest.raises(ValueError, match="config \\(foo\\)"):
        oar.save(t, path, foo=1)
    with pytest.raises(ValueError, match="config \\(foo\\)"):
        oar.load(path, foo=1)
    with pytest.raises(TypeError, match="use_binary_format"):
        oar.save(t, path, use_binary_format=1)
    with pytest.raises(ValueError, match="file path"):
        oar.save(t, 123)
    with pytest.raises(ValueError, match="filename is empty"):
        oar.save(t, str(tmp_path) + "/sub/")
    with pytest.raises(NotImplementedError, match="iterable"):
        oar.save((i for i in range(3)), path)
    with pytest.raises(NotImplementedError, match="bytes"):
        oar.save([b"raw"], path)
    assert not os.path.exists(path)  # nothing was written by the failures above
    with pytest.warns(UserWarning, match="deprecated"):
        oar.save(t, path, pickle_protocol=2)
    with open(path, "rb") as f:
        assert f.read(2) == b"\x80\x02"
    with pytest.raises(ValueError, match="Layer"):
        oar.save(oar.nn.Linear(2, 2), path)
    with pytest.raises(ValueError, match="Layer"):
        oar.save({"model": oar.nn.Linear(2, 2), "step": 1}, path)


def test_async_save(tmp_path):
    t = named(LINEAR_W.copy(), "w")
    path = str(tmp_path / "async.pdparams")
    oar.async_save({"w": t}, path)
    t.fill_(0.0)  # the data were copied before async_save returned
    oar.clear_async_save_task_queue()
    np.testing.assert_array_equal(oar.load(path)["w"].numpy(), LINEAR_W)
    oar.async_save({"w": t}, str(tmp_path))  # a directory: the error surfaces on clear
    with pytest.raises(IsADirectoryError):
        oar.clear_async_save_task_queue()
    with pytest.raises(TypeError):
        oar.async_save([t], path)


# --------------------------------------------------------------------------- live with Paddle


def test_paddle_checkpoints_load_in_oar(tmp_path):
    paddle = pytest.importorskip("paddle")
    paddle.seed(7)
    linear = paddle.nn.Linear(4, 3)
    conv = paddle.nn.Conv2D(2, 3, 3)
    scheduler = paddle.optimizer.lr.StepDecay(0.1, step_size=2)
    adam = paddle.optimizer.Adam(scheduler, parameters=linear.parameters() + conv.parameters())
    x = paddle.randn([2, 4])
    img = paddle.randn([1, 2, 5, 5])
    (linear(x).sum() + conv(img).sum()).backward()
    adam.step()
    scheduler.step()
    for name, sd in (("linear.pdparams", linear.state_dict()), ("conv.pdparams", conv.state_dict()),
                     ("adam.pdopt", adam.state_dict())):
        path = str(tmp_path / name)
        paddle.save(sd, path)
        back = oar.load(path)
        assert list(back) == list(sd)
        for key, value in sd.items():
            if isinstance(value, paddle.Tensor):
                assert isinstance(back[key], oar.Tensor)
                assert back[key].name == value.name
                assert str(back[key].dtype) == str(value.dtype)
                np.testing.assert_array_equal(back[key].numpy(), value.numpy())
            else:
                assert back[key] == value
    # half precision, 0-D and nested objects
    path = str(tmp_path / "mixed.pd")
    bf = paddle.to_tensor([1.5, -2.0, 3e20], dtype="bfloat16")
    h = paddle.to_tensor([0.25, 6e4], dtype="float16")
    paddle.save({"bf": bf, "h": h, "s": paddle.to_tensor(2.5), "meta": {"epoch": 3}}, path)
    back = oar.load(path)
    assert back["bf"].dtype == oar.bfloat16 and back["h"].dtype == oar.float16
    np.testing.assert_array_equal(back["bf"].numpy(), np.array(bf).view(np.uint16))
    np.testing.assert_array_equal(back["h"].numpy(), h.numpy())
    assert back["s"].ndim == 0 and back["s"].item() == 2.5 and back["meta"] == {"epoch": 3}
    paddle.save([bf, (h, "tag"), {"k": paddle.to_tensor([1, 2])}], path)
    back = oar.load(path)
    assert back[0].dtype == oar.bfloat16 and back[1][1] == "tag"
    np.testing.assert_array_equal(back[2]["k"].numpy(), np.array([1, 2]))


def test_oar_checkpoints_load_in_paddle(tmp_path):
    paddle = pytest.importorskip("paddle")
    rng = np.random.RandomState(3)
    linear = paddle.nn.Linear(4, 3)
    conv = paddle.nn.Conv2D(2, 3, 3)
    weights = {}
    for layer, prefix in ((linear, "linear"), (conv, "conv")):
        for key, p in layer.state_dict().items():
            weights[f"{prefix}.{key}"] = Parameter(rng.randn(*p.shape).astype(np.float32), p.name)
    path = str(tmp_path / "model.pdparams")
    oar.save(weights, path)
    back = paddle.load(path)
    assert list(back) == list(weights)
    for key, w in weights.items():
        assert back[key].name == w.name
        np.testing.assert_array_equal(back[key].numpy(), w.numpy())
    # a real Layer takes the oar-written weights
    linear.set_state_dict({k.split(".", 1)[1]: v for k, v in back.items() if k.startswith("linear.")})
    np.testing.assert_array_equal(linear.weight.numpy(), weights["linear.weight"].numpy())

    # an optimizer state written by oar restores a paddle Adam
    adam = paddle.optimizer.Adam(paddle.optimizer.lr.StepDecay(0.1, step_size=2),
                                 parameters=linear.parameters())
    (linear(paddle.randn([2, 4])).sum()).backward()
    adam.step()
    ref = adam.state_dict()
    mine = {k: (named(v.numpy(), v.name) if isinstance(v, paddle.Tensor) else v) for k, v in ref.items()}
    opt_path = str(tmp_path / "adam.pdopt")
    oar.save(mine, opt_path)
    paddle_path = str(tmp_path / "adam_paddle.pdopt")
    paddle.save(ref, paddle_path)
    assert open(opt_path, "rb").read() == open(paddle_path, "rb").read()
    loaded = paddle.load(opt_path)
    adam2 = paddle.optimizer.Adam(paddle.optimizer.lr.StepDecay(0.1, step_size=2),
                                  parameters=linear.parameters())
    adam2.set_state_dict(loaded)
    for key, value in ref.items():
        if isinstance(value, paddle.Tensor):
            np.testing.assert_array_equal(loaded[key].numpy(), value.numpy())
        else:
            assert loaded[key] == value

    # dtypes, 0-D, nested objects and the protocol-2 split, read by paddle
    mixed = {"bf": oar.to_tensor([1.5, -2.0], dtype="bfloat16"), "h": oar.to_tensor([0.5], dtype="float16"),
             "i": oar.to_tensor([1, 2], dtype="int32"), "s": oar.to_tensor(4.0, dtype="float64"),
             "b": oar.to_tensor([True, False])}
    oar.save(mixed, path)
    back = paddle.load(path)
    for key, t in mixed.items():
        assert str(back[key].dtype) == str(t.dtype), key
        assert list(back[key].shape) == list(t.shape)
        got = np.array(back[key]) if key != "bf" else np.array(back[key]).view(np.uint16)
        np.testing.assert_array_equal(got, t.numpy())
    oar.save([named([1.0, 2.0], "a"), {"k": (3, "x")}, Point(1, 2)], path)
    back = paddle.load(path)
    assert back[0].name == "a" and back[1] == {"k": (3, "x")} and back[2] == Point(1, 2)
    np.testing.assert_array_equal(back[0].numpy(), [1.0, 2.0])


def test_split_arrays_load_in_paddle(tmp_path, monkeypatch):
    paddle = pytest.importorskip("paddle")
    monkeypatch.setattr(ckpt_io, "_MAX_PART_BYTES", 16)
    t = named(np.arange(10, dtype=np.float32).reshape(2, 5), "w")
    path = str(tmp_path / "split.pdparams")
    oar.save({"w": t}, path, protocol=3)
    back = paddle.load(path)
    np.testing.assert_array_equal(back["w"].numpy(), t.numpy())


def test_array_dtypes_on_load(tmp_path):
    path = tmp_path / "arrays.pd"
    big_endian = np.arange(4, dtype=">f4")
    with open(path, "wb") as f:  # Paddle 2.0 layout: bare arrays, no name table
        pickle.dump({"be": big_endian}, f, protocol=4)
    back = oar.load(str(path))
    assert back["be"].dtype == oar.float32
    np.testing.assert_array_equal(back["be"].numpy(), [0, 1, 2, 3])
    with open(path, "wb") as f:
        pickle.dump({"u32": np.array([1, 2], np.uint32), "n": 1}, f, protocol=4)
    with pytest.raises(ValueError, match="uint32"):  # paddle.to_tensor refuses uint32 too
        oar.load(str(path))
    assert oar.load(str(path), return_numpy=True)["u32"].dtype == np.uint32


def test_empty_state_dict(tmp_path):
    path = str(tmp_path / "empty.pdparams")
    with pytest.warns(UserWarning, match="empty"):
        oar.save({}, path)
    assert oar.load(path) == {}


def test_layers_exchange_weights_with_paddle(tmp_path):
    paddle = pytest.importorskip("paddle")
    x = np.random.RandomState(4).randn(2, 2, 6, 6).astype(np.float32)
    paddle.seed(11)
    oar.seed(12)
    pairs = ((paddle.nn.Conv2D(2, 3, 3), oar.nn.Conv2D(2, 3, 3), x),
             (paddle.nn.Linear(6, 4), oar.nn.Linear(6, 4), x))
    for theirs, ours, inp in pairs:
        # Paddle -> oar: same weights, same outputs
        path = str(tmp_path / "from_paddle.pdparams")
        paddle.save(theirs.state_dict(), path)
        assert ours.set_state_dict(oar.load(path)) == ([], [])
        want = theirs(paddle.to_tensor(inp)).numpy()
        np.testing.assert_allclose(ours(oar.to_tensor(inp)).numpy(), want, rtol=1e-5, atol=1e-5)
        # oar -> Paddle, after changing the oar weights
        for p in ours.parameters():
            p.set_value(oar.to_tensor(np.random.RandomState(1).randn(*p.shape).astype(np.float32)))
        path = str(tmp_path / "from_oar.pdparams")
        oar.save(ours.state_dict(), path)
        loaded = paddle.load(path)
        for key, value in ours.state_dict().items():
            assert loaded[key].name == value.name
            np.testing.assert_array_equal(loaded[key].numpy(), value.numpy())
        theirs.set_state_dict(loaded)
        np.testing.assert_allclose(theirs(paddle.to_tensor(inp)).numpy(), ours(oar.to_tensor(inp)).numpy(),
                                   rtol=1e-5, atol=1e-5)
