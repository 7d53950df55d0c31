"""oar.vision.transforms affine, perspective, RandomAffine and RandomPerspective: PIL images (via
Pillow), NumPy images (as Paddle's OpenCV path) and tensors (grid_sample), compared with literals
and with Paddle itself (fixed parameters) when it imports."""
import numpy as np
import pytest

import oar
import oar.vision.transforms as T

Image = pytest.importorskip("PIL.Image")

RNG = np.random.default_rng(0)
U8 = (RNG.random((9, 11, 3)) * 255).astype(np.uint8)
F32 = RNG.random((3, 9, 11)).astype(np.float32)
AFFINE_CASES = [dict(angle=30, translate=[1, 2], scale=0.8, shear=[5, -10]),
                dict(angle=-90, translate=(0, 0), scale=1.0, shear=0, center=[3, 4]),
                dict(angle=12.5, translate=[2, -1], scale=1.3, shear=7, fill=100)]
START = [[0, 0], [10, 0], [10, 8], [0, 8]]
END = [[1, 2], [9, 0], [10, 7], [2, 8]]


def test_affine_literals():
    img = oar.to_tensor([[[1.0, 2.0], [3.0, 4.0]]])
    np.testing.assert_array_equal(T.affine(img, 90, (0, 0), 1.0, 0.0).numpy(), [[[3, 1], [4, 2]]])
    np.testing.assert_array_equal(T.affine(img, 0, (1, 0), 1.0, 0.0, fill=9).numpy(),
                                  [[[9, 1], [9, 3]]])
    a = np.arange(12, dtype=np.uint8).reshape(3, 4)
    # NumPy images: Paddle's cv2 path moves by translate with the map built about the origin
    np.testing.assert_array_equal(T.affine(a, 0, (1, 0), 1.0, 0.0), np.c_[np.zeros(3, np.uint8), a[:, :3]])
    pil = Image.fromarray(a)
    np.testing.assert_array_equal(np.asarray(T.affine(pil, 0, (0, 1), 1.0, 0.0, fill=7)),
                                  np.r_[np.zeros((1, 4), np.uint8), a[:2]])  # PIL: fill unused


def test_perspective_identity_and_literal():
    img = oar.arange(9, dtype="float32").reshape([1, 3, 3])
    c = [[0, 0], [2, 0], [2, 2], [0, 2]]
    np.testing.assert_array_equal(T.perspective(img, c, c).numpy(), img.numpy())
    a = np.arange(9, dtype=np.uint8).reshape(3, 3)
    np.testing.assert_array_equal(T.perspective(a, c, c), a)
    shifted = [[1, 0], [3, 0], [3, 2], [1, 2]]
    np.testing.assert_array_equal(T.perspective(a, c, shifted, fill=5), np.c_[[5, 5, 5], a[:, :2]])


@pytest.mark.host_only
@pytest.mark.parametrize("interp", ["nearest", "bilinear"])
def test_affine_and_perspective_match_paddle(interp):
    paddle = pytest.importorskip("paddle")
    pytest.importorskip("cv2")
    PT = paddle.vision.transforms
    for kw in AFFINE_CASES:
        kw = dict(kw, interpolation=interp)
        np.testing.assert_array_equal(np.asarray(T.affine(Image.fromarray(U8), **kw)),
                                      np.asarray(PT.affine(Image.fromarray(U8), **kw)))
        np.testing.assert_array_equal(T.affine(U8, **kw), PT.affine(U8, **kw))
        np.testing.assert_allclose(T.affine(oar.to_tensor(F32), **kw).numpy(),
                                   PT.affine(paddle.to_tensor(F32), **kw).numpy(), atol=1e-4)
    for fill in (0, 50):
        kw = dict(interpolation=interp, fill=fill)
        np.testing.assert_array_equal(np.asarray(T.perspective(Image.fromarray(U8), START, END, **kw)),
                                      np.asarray(PT.perspective(Image.fromarray(U8), START, END, **kw)))
        np.testing.assert_array_equal(T.perspective(U8, START, END, **kw),
                                      PT.perspective(U8, START, END, **kw))
        np.testing.assert_allclose(T.perspective(oar.to_tensor(F32), START, END, **kw).numpy(),
                                   PT.perspective(paddle.to_tensor(F32), START, END, **kw).numpy(),
                                   atol=1e-4)


def test_affine_errors():
    img = oar.ones([1, 4, 4])
    with pytest.raises(TypeError, match="angle"):
        T.affine(img, "30", (0, 0), 1.0, 0.0)
    with pytest.raises(ValueError, match="translate"):
        T.affine(img, 30, (0, 0, 0), 1.0, 0.0)
    with pytest.raises(ValueError, match="scale"):
        T.affine(img, 30, (0, 0), 0.0, 0.0)
    with pytest.raises(ValueError, match="Shear"):
        T.affine(img, 30, (0, 0), 1.0, [1, 2, 3])
    with pytest.raises(TypeError, match="should be PIL Image"):
        T.affine([1, 2], 30, (0, 0), 1.0, 0.0)
    with pytest.raises(ValueError, match="startpoints"):
        T.perspective(img, [[0, 0]], [[0, 0]])


def test_random_affine_and_perspective():
    oar.seed(7)
    t = T.RandomAffine(20, translate=[0.2, 0.1], scale=[0.8, 1.2], shear=[-5, 5, -3, 3],
                       interpolation="bilinear", fill=3)
    out = t(U8)
    assert out.shape == U8.shape and out.dtype == np.uint8
    oar.seed(7)
    np.testing.assert_array_equal(t(U8), out)  # the draws repeat after oar.seed
    assert t(oar.to_tensor(F32)).shape == [3, 9, 11]
    assert t(Image.fromarray(U8)).size == (11, 9)
    angle, (tx, ty), scale, (sx, sy) = t._get_param((11, 9), t.degrees, t.translate, t.scale, t.shear)
    assert -20 <= angle <= 20 and abs(tx) <= 2.2 and abs(ty) <= 0.9 and 0.8 <= scale <= 1.2
    assert -5 <= sx <= 5 and -3 <= sy <= 3
    assert T.RandomPerspective(prob=0.0)(U8) is U8
    p = T.RandomPerspective(prob=1.0, distortion_scale=0.5)
    start, end = p.get_params(11, 9, 0.5)
    assert start == [[0, 0], [10, 0], [10, 8], [0, 8]]
    assert 0 <= end[0][0] <= 3 and 0 <= end[0][1] <= 3 and 7 <= end[2][0] <= 11
    assert p(oar.to_tensor(F32)).shape == [3, 9, 11]
    with pytest.raises(ValueError, match="degrees"):
        T.RandomAffine(-1)
    with pytest.raises(ValueError, match="translation"):
        T.RandomAffine(1, translate=[2, 0])
    with pytest.raises(ValueError, match="scale"):
        T.RandomAffine(1, scale=[0, 1])
    with pytest.raises(AssertionError, match="probability"):
        T.RandomPerspective(prob=2)
