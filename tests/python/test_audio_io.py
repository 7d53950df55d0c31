"""oar.audio.load / save / info and the backends module: PCM16 files byte for byte as Paddle writes
them and read as Paddle reads them; 8/24/32-bit round trips against NumPy; file objects; atomic
replacement; Paddle's and oar's argument errors."""
import io
import os
import wave

import numpy as np
import pytest

import oar
from oar.audio.backends import pcm

RNG = np.random.default_rng(5)


def _wave_file(path, samples, width, rate=8000):
    """Writes raw integer samples [frames, channels] with Python's wave, as a reference."""
    with wave.open(str(path), "wb") as w:
        w.setnchannels(samples.shape[1])
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(pcm.encode(samples, width) if samples.dtype.kind == "f" else _raw(samples, width))


def _raw(ints, width):
    if width == 1:
        return ints.astype(np.uint8).tobytes()
    if width == 3:
        u = ints.astype(np.int64) & 0xFFFFFF
        return np.stack([u & 255, (u >> 8) & 255, u >> 16], -1).astype(np.uint8).tobytes()
    return ints.astype({2: "<i2", 4: "<i4"}[width]).tobytes()


def test_save_is_byte_identical_to_paddle_and_load_matches(tmp_path):
    paddle = pytest.importorskip("paddle")
    x = RNG.uniform(-1, 1, (2, 1000)).astype(np.float32)
    ours, theirs = tmp_path / "o.wav", tmp_path / "p.wav"
    oar.audio.save(str(ours), oar.to_tensor(x), 16000)
    paddle.audio.save(str(theirs), paddle.to_tensor(x), 16000)
    assert ours.read_bytes() == theirs.read_bytes()
    for kw in [dict(), dict(normalize=False), dict(channels_first=False),
               dict(frame_offset=10, num_frames=100), dict(frame_offset=990, num_frames=100)]:
        expected, expected_sr = paddle.audio.load(str(theirs), **kw)
        got, sr = oar.audio.load(str(ours), **kw)
        assert sr == expected_sr == 16000 and got.dtype == oar.float32
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
    expected_info, info = paddle.audio.info(str(theirs)), oar.audio.info(str(ours))
    for field in ("sample_rate", "num_samples", "num_channels", "bits_per_sample", "encoding"):
        assert getattr(info, field) == getattr(expected_info, field)
    assert info.num_frames == 1000


def test_load_reads_files_paddle_writes_and_the_reverse(tmp_path):
    paddle = pytest.importorskip("paddle")
    x = RNG.uniform(-0.9, 0.9, (1, 300)).astype(np.float32)
    paddle.audio.save(str(tmp_path / "p.wav"), paddle.to_tensor(x), 22050)
    got, sr = oar.audio.load(str(tmp_path / "p.wav"))
    np.testing.assert_allclose(got.numpy(), x, atol=2 ** -15)
    oar.audio.save(str(tmp_path / "o.wav"), oar.to_tensor(x.T), 22050, channels_first=False)
    back, sr = paddle.audio.load(str(tmp_path / "o.wav"))
    np.testing.assert_array_equal(back.numpy(), got.numpy())


@pytest.mark.parametrize("bits", [8, 16, 24, 32])
def test_integer_widths_round_trip(tmp_path, bits):
    width, scale = bits // 8, 2.0 ** (bits - 1)
    ints = RNG.integers(-scale, scale, (500, 3)).astype(np.int64)
    stored = ints + 128 if bits == 8 else ints  # 8-bit WAV is unsigned
    _wave_file(tmp_path / "ref.wav", stored, width)
    info = oar.audio.info(str(tmp_path / "ref.wav"))
    assert (info.bits_per_sample, info.num_channels, info.num_samples) == (bits, 3, 500)
    assert info.encoding == ("PCM_U" if bits == 8 else "PCM_S")
    got, sr = oar.audio.load(str(tmp_path / "ref.wav"))
    assert sr == 8000 and got.shape == [3, 500]
    np.testing.assert_allclose(got.numpy(), (ints / scale).T.astype(np.float32), rtol=1e-7)
    raw, _ = oar.audio.load(str(tmp_path / "ref.wav"), normalize=False, channels_first=False)
    np.testing.assert_allclose(raw.numpy(), stored.astype(np.float32))
    # writing the normalized samples back gives the same file (float32 holds 24 bits exactly;
    # 32-bit samples come back within float32's rounding)
    oar.audio.save(str(tmp_path / "out.wav"), got, 8000, bits_per_sample=bits)
    if bits <= 24:
        assert (tmp_path / "out.wav").read_bytes() == (tmp_path / "ref.wav").read_bytes()
    else:
        again, _ = oar.audio.load(str(tmp_path / "out.wav"), normalize=False)
        np.testing.assert_allclose(again.numpy(), ints.T, atol=2 ** 8)
    # integer tensors are written as sample values
    if bits != 8:
        oar.audio.save(str(tmp_path / "int.wav"), oar.to_tensor(ints.T), 8000, bits_per_sample=bits)
        assert (tmp_path / "int.wav").read_bytes() == (tmp_path / "ref.wav").read_bytes()


def test_frame_offset_without_num_frames_and_clipping(tmp_path):
    path = str(tmp_path / "a.wav")
    x = np.array([[0.0, 0.5, -0.5, 1.0, -1.0, 2.0]], dtype=np.float32)
    oar.audio.save(path, oar.to_tensor(x), 8000)
    raw, _ = oar.audio.load(path, normalize=False)
    # 1.0 and 2.0 are clipped to the largest sample instead of wrapping round to -32768
    np.testing.assert_array_equal(raw.numpy(), [[0, 16384, -16384, 32767, -32768, 32767]])
    # Paddle ignores frame_offset when num_frames is -1; oar reads from the offset to the end
    tail, _ = oar.audio.load(path, frame_offset=4)
    np.testing.assert_array_equal(tail.numpy(), [[-1.0, 32767 / 32768]])
    assert oar.audio.load(path, frame_offset=10)[0].shape == [1, 0]
    assert oar.audio.load(path, num_frames=0)[0].shape == [1, 0]


def test_file_objects_are_read_and_written_and_left_open(tmp_path):
    buf = io.BytesIO()
    x = RNG.uniform(-1, 1, (2, 50)).astype(np.float32)
    oar.audio.save(buf, oar.to_tensor(x), 16000)
    assert not buf.closed
    oar.audio.save(str(tmp_path / "f.wav"), oar.to_tensor(x), 16000)
    assert buf.getvalue() == (tmp_path / "f.wav").read_bytes()
    buf.seek(0)
    assert oar.audio.info(buf).num_samples == 50 and not buf.closed
    buf.seek(0)
    got, _ = oar.audio.load(buf)
    np.testing.assert_allclose(got.numpy(), x, atol=2 ** -15)
    with open(tmp_path / "f.wav", "rb") as f:
        assert oar.audio.load(f)[0].shape == [2, 50]
        assert not f.closed


def test_save_replaces_atomically(tmp_path):
    path = tmp_path / "a.wav"
    path.write_bytes(b"old contents")
    oar.audio.save(str(path), oar.zeros([1, 10]), 8000)
    assert oar.audio.info(str(path)).num_samples == 10
    assert sorted(os.listdir(tmp_path)) == ["a.wav"]  # no temporary left beside it
    # a failing save leaves the old file as it was, and no temporary
    with pytest.raises(ValueError, match="integer samples must lie in"):
        oar.audio.save(str(path), oar.to_tensor(np.array([[40000]], dtype=np.int32)), 8000)
    assert oar.audio.info(str(path)).num_samples == 10 and sorted(os.listdir(tmp_path)) == ["a.wav"]
    oar.audio.save(tmp_path / "b.wav", oar.zeros([1, 3]), 8000)  # a PathLike works too
    assert oar.audio.info(str(tmp_path / "b.wav")).num_samples == 3


def test_errors(tmp_path):
    with pytest.raises(AssertionError, match="Expected 2D tensor"):
        oar.audio.save(str(tmp_path / "a.wav"), oar.zeros([10]), 8000)
    with pytest.raises(ValueError, match="Invalid bits_per_sample 12"):
        oar.audio.save(str(tmp_path / "a.wav"), oar.zeros([1, 10]), 8000, bits_per_sample=12)
    with pytest.raises(ValueError, match="Invalid encoding 'PCM_F'"):
        oar.audio.save(str(tmp_path / "a.wav"), oar.zeros([1, 10]), 8000, encoding="PCM_F")
    with pytest.raises(ValueError, match="Invalid encoding 'PCM_S' for 8-bit"):
        oar.audio.save(str(tmp_path / "a.wav"), oar.zeros([1, 10]), 8000, encoding="PCM_S", bits_per_sample=8)
    oar.audio.save(str(tmp_path / "a.wav"), oar.zeros([1, 10]), 8000, encoding="PCM_S", bits_per_sample=None)
    (tmp_path / "x.wav").write_bytes(b"not a wav file at all")
    for fn in (oar.audio.load, oar.audio.info):
        with pytest.raises(NotImplementedError, match="integer PCM"):
            fn(str(tmp_path / "x.wav"))
    with pytest.raises(FileNotFoundError):
        oar.audio.load(str(tmp_path / "missing.wav"))
    with pytest.raises(ValueError, match="frame_offset"):
        oar.audio.load(str(tmp_path / "a.wav"), frame_offset=-1)
    with pytest.raises(ValueError, match="num_frames"):
        oar.audio.load(str(tmp_path / "a.wav"), num_frames=-2)


def test_backend_choice_and_audio_info_and_paddle():
    assert oar.audio.backends.list_available_backends() == ["wave_backend"]
    assert oar.audio.backends.get_current_backend() == "wave_backend"
    oar.audio.backends.set_backend("wave_backend")
    with pytest.raises(NotImplementedError, match="soundfile"):
        oar.audio.backends.set_backend("soundfile")
    info = oar.audio.backends.backend.AudioInfo(8000, 5, 1, 16, "PCM_S")
    assert repr(info) == ("AudioInfo(sample_rate=8000, num_samples=5, num_channels=1, bits_per_sample=16, "
                          "encoding='PCM_S')")
    paddle = pytest.importorskip("paddle")
    assert sorted(oar.audio.__all__) == sorted(paddle.audio.__all__)
    assert sorted(oar.audio.backends.__all__) == sorted(paddle.audio.backends.__all__)
