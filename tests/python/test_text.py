"""oar.text.viterbi_decode and ViterbiDecoder: scores and paths against a brute-force NumPy
search over every tag sequence and against real Paddle (exactly equal) on random inputs, with
lengths shorter than the sequence (zero included), include_bos_eos_tag both ways, float32 and
float64; Paddle's shape errors; the decoder layer."""
import itertools

import numpy as np
import pytest

import oar

RNG = np.random.default_rng(21)


def _brute_force(pot, trans, lengths, bos_eos):
    """The best score and path of each sequence, by scoring every tag sequence."""
    batch, _, tags = pot.shape
    width = int(lengths.max())
    scores, paths = np.zeros(batch, pot.dtype), np.zeros((batch, width), np.int64)
    for b, length in enumerate(lengths):
        best, best_path = -np.inf, None
        for path in itertools.product(range(tags), repeat=int(length)):
            s = sum(pot[b, t, y] for t, y in enumerate(path)) + sum(trans[a, c] for a, c in zip(path, path[1:]))
            if bos_eos:
                s += trans[tags - 1, path[0]] + trans[tags - 2, path[-1]]
            if s > best:
                best, best_path = s, path
        scores[b] = best
        paths[b, :length] = best_path
    return scores, paths


def _case(batch, seq_len, tags, dtype, seed):
    rng = np.random.default_rng(seed)
    pot = rng.standard_normal((batch, seq_len, tags)).astype(dtype)
    trans = rng.standard_normal((tags, tags)).astype(dtype)
    lengths = rng.integers(1, seq_len + 1, batch).astype(np.int64)
    return pot, trans, lengths


@pytest.mark.parametrize("bos_eos", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_matches_brute_force(bos_eos, seed):
    pot, trans, lengths = _case(4, 5, 3, "float64", seed)
    lengths[0] = 5  # one full-length sequence, the others shorter
    scores, paths = oar.text.viterbi_decode(oar.to_tensor(pot), oar.to_tensor(trans), oar.to_tensor(lengths),
                                            include_bos_eos_tag=bos_eos)
    expected_scores, expected_paths = _brute_force(pot, trans, lengths, bos_eos)
    np.testing.assert_allclose(scores.numpy(), expected_scores, rtol=1e-12)
    np.testing.assert_array_equal(paths.numpy(), expected_paths)
    assert scores.dtype == oar.float64 and paths.dtype == oar.int64


@pytest.mark.parametrize("bos_eos", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matches_paddle(bos_eos, dtype):
    paddle = pytest.importorskip("paddle")
    for seed in range(40):
        rng = np.random.default_rng(seed)
        batch, seq_len, tags = rng.integers(1, 5), rng.integers(1, 8), rng.integers(2, 6)
        pot, trans, lengths = _case(batch, seq_len, tags, dtype, seed)
        if batch > 1 and seed % 4 == 0:
            lengths[0] = 0  # an empty sequence beside others
        expected = paddle.text.viterbi_decode(paddle.to_tensor(pot), paddle.to_tensor(trans),
                                              paddle.to_tensor(lengths), bos_eos)
        got = oar.text.viterbi_decode(oar.to_tensor(pot), oar.to_tensor(trans), oar.to_tensor(lengths), bos_eos)
        assert got[1].shape == list(expected[1].shape)  # [batch, max(lengths)]
        np.testing.assert_array_equal(got[0].numpy(), expected[0].numpy())
        np.testing.assert_array_equal(got[1].numpy(), expected[1].numpy())


def test_decoder_layer_matches_the_function_and_paddle():
    pot, trans, lengths = _case(3, 6, 4, "float32", 3)
    decoder = oar.text.ViterbiDecoder(oar.to_tensor(trans), include_bos_eos_tag=False)
    assert decoder.include_bos_eos_tag is False and decoder.name is None
    got = decoder(oar.to_tensor(pot), oar.to_tensor(lengths))
    direct = oar.text.viterbi_decode(oar.to_tensor(pot), oar.to_tensor(trans), oar.to_tensor(lengths), False)
    np.testing.assert_array_equal(got[0].numpy(), direct[0].numpy())
    np.testing.assert_array_equal(got[1].numpy(), direct[1].numpy())
    assert list(decoder.state_dict()) == []  # the transitions are a non-persistable buffer, as Paddle's
    paddle = pytest.importorskip("paddle")
    expected = paddle.text.ViterbiDecoder(paddle.to_tensor(trans), include_bos_eos_tag=False)(
        paddle.to_tensor(pot), paddle.to_tensor(lengths))
    np.testing.assert_array_equal(got[1].numpy(), expected[1].numpy())


def test_all_empty_sequences():
    # Paddle crashes here (segmentation fault); oar gives the start scores and empty paths
    pot, trans, _ = _case(2, 3, 3, "float64", 1)
    scores, paths = oar.text.viterbi_decode(oar.to_tensor(pot), oar.to_tensor(trans),
                                            oar.to_tensor(np.zeros(2, np.int64)), include_bos_eos_tag=True)
    assert paths.shape == [2, 0]
    np.testing.assert_allclose(scores.numpy(), (pot[:, 0] + trans[2]).max(axis=1))


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.value


@pytest.mark.parametrize("shapes", [((2, 4), (3, 3), (2,)), ((2, 4, 3), (3, 3), (2, 1)), ((2, 4, 3), (3, 3), (3,)),
                                    ((2, 4, 3), (4, 4), (2,))])
def test_shape_errors_match_paddle(shapes):
    paddle = pytest.importorskip("paddle")
    pot_shape, trans_shape, len_shape = shapes
    pot, trans = np.zeros(pot_shape, np.float32), np.zeros(trans_shape, np.float32)
    lengths = np.ones(len_shape, np.int64)
    expected = _error(lambda: paddle.text.viterbi_decode(paddle.to_tensor(pot), paddle.to_tensor(trans),
                                                         paddle.to_tensor(lengths)))
    got = _error(lambda: oar.text.viterbi_decode(oar.to_tensor(pot), oar.to_tensor(trans), oar.to_tensor(lengths)))
    assert isinstance(got, ValueError) and isinstance(expected, ValueError)
    # Paddle's message, without its "(InvalidArgument)" prefix and C++ hint
    assert str(got).split(" (")[0].split(".")[0] in str(expected)


def test_dtype_and_length_errors():
    pot, trans = oar.zeros([2, 3, 3]), oar.zeros([3, 3])
    with pytest.raises(TypeError, match="float32 or float64"):
        oar.text.viterbi_decode(oar.zeros([2, 3, 3], dtype="int64"), trans, oar.to_tensor([1, 2]))
    with pytest.raises(TypeError, match="dtype of potentials"):
        oar.text.viterbi_decode(pot, oar.zeros([3, 3], dtype="float64"), oar.to_tensor([1, 2]))
    with pytest.raises(TypeError, match="integer"):
        oar.text.viterbi_decode(pot, trans, oar.to_tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="should not exceed the sequence length"):
        oar.text.viterbi_decode(pot, trans, oar.to_tensor([1, 4]))
    # int32 lengths are accepted (Paddle asks for int64)
    scores, paths = oar.text.viterbi_decode(pot, trans, oar.to_tensor([1, 2], dtype="int32"))
    assert paths.shape == [2, 2]
