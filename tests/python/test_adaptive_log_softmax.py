"""F.adaptive_log_softmax_with_loss and nn.AdaptiveLogSoftmaxWithLoss: against a NumPy reference
of the adaptive softmax, finite differences, and Paddle 3.3.1 live (Paddle's parameters copied
in); parameter names/shapes and the errors Paddle raises."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F

IN, CLASSES, CUTOFFS = 8, 10, [3, 6]


def _log_softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def reference_log_prob(x, head_w, head_b, tails, cutoffs):
    """NumPy: [N, n_classes] log-probabilities of the adaptive softmax (cutoffs end with
    n_classes)."""
    head = _log_softmax(x @ head_w + (0 if head_b is None else head_b))
    parts = [head[:, :cutoffs[0]]]
    for i, (w0, w1) in enumerate(tails):
        parts.append(_log_softmax(x @ w0 @ w1) + head[:, cutoffs[0] + i:cutoffs[0] + i + 1])
    return np.concatenate(parts, axis=1)


def _layer(head_bias=True, seed=0, dtype='float32', **kw):
    layer = oar.nn.AdaptiveLogSoftmaxWithLoss(IN, CLASSES, CUTOFFS, head_bias=head_bias, **kw)
    rng = np.random.RandomState(seed)
    for p in layer.parameters() + [w for pair in layer.tail_weights for w in pair]:
        p.set_value(rng.randn(*p.shape).astype(dtype) * 0.7)
    return layer


def _numpy_params(layer):
    b = None if layer.head_bias is None else layer.head_bias.numpy()
    return (layer.head_weight.numpy(), b,
            [(a.numpy(), c.numpy()) for a, c in layer.tail_weights])


X = np.random.RandomState(1).randn(7, IN).astype('float32')
LABELS = np.array([0, 4, 9, 2, 7, 5, 3])   # shortlist, both clusters, boundaries


def test_parameters_as_paddle():
    layer = oar.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4, 10], head_bias=True)
    assert list(layer.state_dict().keys()) == ['head_weight', 'head_bias']
    assert [list(p.shape) for p in layer.parameters()] == [[16, 6], [6]]
    # cluster i projects to in_features // div_value**(i+1) features
    assert [[list(w.shape) for w in pair] for pair in layer.tail_weights] == [
        [[16, 4], [4, 6]], [[16, 1], [1, 10]]]
    assert layer.head_weight.name.endswith('.w_0') and layer.head_bias.name.endswith('.b_0')
    assert (layer.shortlist_size, layer.n_clusters, layer.head_size) == (4, 2, 6)
    assert layer.cutoffs == [4, 10, 20]
    assert repr(layer) == 'AdaptiveLogSoftmaxWithLoss()'
    plain = oar.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0)
    assert plain.head_bias is None and list(plain.state_dict().keys()) == ['head_weight']
    assert [list(w.shape) for w in plain.tail_weights[1]] == [[8, 2], [2, 4]]


@pytest.mark.parametrize("head_bias", [True, False])
def test_forward_and_log_prob_match_numpy(head_bias):
    layer = _layer(head_bias)
    out, loss = layer(oar.to_tensor(X), oar.to_tensor(LABELS))
    full = reference_log_prob(X.astype('float64'), *_numpy_params(layer), layer.cutoffs)
    want = full[np.arange(len(LABELS)), LABELS]
    assert list(out.shape) == [7] and list(loss.shape) == [] and out.dtype.name == 'float32'
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(loss.numpy(), -want.mean(), rtol=1e-5)
    log_prob = layer.log_prob(oar.to_tensor(X)).numpy()
    assert log_prob.shape == (7, CLASSES)
    np.testing.assert_allclose(log_prob, full, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.exp(log_prob).sum(1), 1.0, rtol=1e-5)   # a distribution


def test_single_sample_and_int32_labels():
    layer = _layer()
    full = reference_log_prob(X.astype('float64'), *_numpy_params(layer), layer.cutoffs)
    out, loss = layer(oar.to_tensor(X[2]), oar.to_tensor(9))
    assert list(out.shape) == [] and list(loss.shape) == []
    np.testing.assert_allclose(out.numpy(), full[2, 9], rtol=1e-5)
    np.testing.assert_allclose(loss.numpy(), -full[2, 9], rtol=1e-5)
    out32, _ = layer(oar.to_tensor(X), oar.to_tensor(LABELS.astype('int32')))
    np.testing.assert_allclose(out32.numpy(), full[np.arange(7), LABELS], rtol=1e-5, atol=1e-5)


def test_empty_batch_gives_nan_loss():
    layer = _layer()
    out, loss = layer(oar.to_tensor(X[:0]), oar.to_tensor(np.zeros([0], 'int64')))
    assert list(out.shape) == [0] and np.isnan(loss.numpy())


def test_gradients_match_finite_differences():
    rng = np.random.RandomState(3)
    x = rng.randn(5, IN)
    head_w, head_b = rng.randn(IN, 5), rng.randn(5)
    tails = [(rng.randn(IN, 2), rng.randn(2, 3)), (rng.randn(IN, 1), rng.randn(1, 4))]
    labels = np.array([1, 3, 8, 5, 9])
    cutoffs = [3, 6, 10]

    def loss_np(x_, hw, t00):
        full = reference_log_prob(x_, hw, head_b, [(t00, tails[0][1]), tails[1]], cutoffs)
        return -full[np.arange(5), labels].mean()

    args = [oar.to_tensor(a, stop_gradient=False) for a in (x, head_w, tails[0][0])]
    tail_t = [[args[2], oar.to_tensor(tails[0][1])], [oar.to_tensor(t) for t in tails[1]]]
    _, loss = F.adaptive_log_softmax_with_loss(args[0], oar.to_tensor(labels), args[1], tail_t,
                                               cutoffs, oar.to_tensor(head_b))
    np.testing.assert_allclose(loss.numpy(), loss_np(x, head_w, tails[0][0]), rtol=1e-12)
    loss.backward()
    base = [x, head_w, tails[0][0]]
    for k, t in enumerate(args):
        numeric = np.zeros_like(base[k])
        for idx in np.ndindex(*base[k].shape):
            plus = [b.copy() for b in base]
            minus = [b.copy() for b in base]
            plus[k][idx] += 1e-6
            minus[k][idx] -= 1e-6
            numeric[idx] = (loss_np(*plus) - loss_np(*minus)) / 2e-6
        np.testing.assert_allclose(t.grad.numpy(), numeric, rtol=1e-6, atol=1e-8)


def test_predict_matches_numpy_in_all_three_cases():
    x = oar.to_tensor(X)
    for bias_at, dtype in ((0, 'float32'), (CUTOFFS[0] + 1, 'int64'), (None, 'float32')):
        layer = _layer()
        if bias_at is not None:   # push every row's head winner to one entry
            bias = np.zeros([layer.head_size], 'float32')
            bias[bias_at] = 50.0
            layer.head_bias.set_value(bias)
        params = _numpy_params(layer)
        head = X @ params[0] + params[1]
        full = reference_log_prob(X.astype('float64'), *params, layer.cutoffs)
        want = np.where(head.argmax(1) < CUTOFFS[0], head.argmax(1), full.argmax(1))
        got = layer.predict(x)
        assert got.dtype.name == dtype
        np.testing.assert_array_equal(got.numpy(), want)
        if bias_at is None:   # the mixed case really mixes
            assert 0 < (head.argmax(1) >= CUTOFFS[0]).sum() < len(X)


@pytest.mark.parametrize("cutoffs", [[6, 3], [0, 4], [3, 10], [3, 3], [3.5, 6]])
def test_bad_cutoffs(cutoffs):
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique, positive"):
        oar.nn.AdaptiveLogSoftmaxWithLoss(IN, CLASSES, cutoffs)


def test_bad_cutoff_types():
    with pytest.raises(ValueError, match="cutoffs"):
        oar.nn.AdaptiveLogSoftmaxWithLoss(IN, CLASSES, [])
    with pytest.raises(TypeError, match="cutoffs"):
        oar.nn.AdaptiveLogSoftmaxWithLoss(IN, CLASSES, [3.0, 6])
    with pytest.raises(TypeError, match="cutoffs"):
        oar.nn.AdaptiveLogSoftmaxWithLoss(IN, CLASSES, ['3'])


def test_bad_labels_and_shapes():
    layer = _layer()
    x = oar.to_tensor(X[:5])
    with pytest.raises(ValueError, match=r"should be in \[0, n_classes - 1\].*\[0, 10\]"):
        layer(x, oar.to_tensor([0, 1, 2, 3, 10]))
    with pytest.raises(ValueError, match=r"\[-1, 3\]"):
        layer(x, oar.to_tensor([0, 1, 2, 3, -1]))
    with pytest.raises(ValueError, match="same size in the batch dimension"):
        layer(x, oar.to_tensor([0, 1, 2, 3]))
    with pytest.raises(ValueError, match="multi-label not supported"):
        layer(x, oar.to_tensor([[0, 1, 2, 3, 4]]))
    with pytest.raises(ValueError, match="0D label tensor expects 1D input"):
        layer(x, oar.to_tensor(3))
    with pytest.raises(ValueError, match="1D label tensor expects 2D input"):
        layer(oar.to_tensor(X[0, :1]), oar.to_tensor([3]))


def test_functional_checks_weights_against_cutoffs():
    x, y = oar.to_tensor(X[:3]), oar.to_tensor([0, 4, 7])
    tails = [[oar.randn([IN, 2]), oar.randn([2, 3])], [oar.randn([IN, 1]), oar.randn([1, 4])]]
    with pytest.raises(IndexError, match="head_weight"):   # Paddle: IndexError from its gather
        F.adaptive_log_softmax_with_loss(x, y, oar.randn([IN, 4]), tails, [3, 6, 10])
    with pytest.raises(IndexError, match="tail_weights"):
        F.adaptive_log_softmax_with_loss(x, y, oar.randn([IN, 5]), tails[:1], [3, 6, 10])


# ---- live comparison with Paddle ----

def _paddle_pair(paddle, head_bias=True):
    paddle.seed(7)
    pl = paddle.nn.AdaptiveLogSoftmaxWithLoss(IN, CLASSES, CUTOFFS, head_bias=head_bias)
    ol = oar.nn.AdaptiveLogSoftmaxWithLoss(IN, CLASSES, CUTOFFS, head_bias=head_bias)
    ol.set_state_dict({k: v.numpy() for k, v in pl.state_dict().items()})   # Paddle's keys load
    for pair, ppair in zip(ol.tail_weights, pl.tail_weights):
        for w, pw in zip(pair, ppair):
            w.set_value(pw.numpy())
    return pl, ol


@pytest.mark.parametrize("head_bias", [True, False])
def test_matches_paddle_live(head_bias):
    paddle = pytest.importorskip("paddle")
    pl, ol = _paddle_pair(paddle, head_bias)
    assert list(ol.state_dict()) == list(pl.state_dict())
    for k, v in pl.state_dict().items():
        assert list(ol.state_dict()[k].shape) == list(v.shape)
    px = paddle.to_tensor(X, stop_gradient=False)
    ox = oar.to_tensor(X, stop_gradient=False)
    pout, ploss = pl(px, paddle.to_tensor(LABELS))
    oout, oloss = ol(ox, oar.to_tensor(LABELS))
    np.testing.assert_allclose(oout.numpy(), pout.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(oloss.numpy(), ploss.numpy(), rtol=1e-5)
    ploss.backward()
    oloss.backward()
    np.testing.assert_allclose(ox.grad.numpy(), px.grad.numpy(), rtol=1e-4, atol=1e-6)
    named = [(ol.head_weight, pl.head_weight)] + [
        (w, pw) for pair, ppair in zip(ol.tail_weights, pl.tail_weights)
        for w, pw in zip(pair, ppair)]
    if head_bias:
        named.append((ol.head_bias, pl.head_bias))
    for w, pw in named:
        np.testing.assert_allclose(w.grad.numpy(), pw.grad.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(ol.log_prob(oar.to_tensor(X)).numpy(),
                               pl.log_prob(paddle.to_tensor(X)).numpy(), rtol=1e-5, atol=1e-5)
    ppred, opred = pl.predict(paddle.to_tensor(X)), ol.predict(oar.to_tensor(X))
    assert opred.dtype.name == str(ppred.dtype).split('.')[-1]
    np.testing.assert_array_equal(opred.numpy(), ppred.numpy())


def test_functional_matches_paddle_live_one_sample():
    paddle = pytest.importorskip("paddle")
    pl, ol = _paddle_pair(paddle)
    for label in (1, 4, 8):
        pout, ploss = pl(paddle.to_tensor(X[3]), paddle.to_tensor(label))
        oout, oloss = F.adaptive_log_softmax_with_loss(
            oar.to_tensor(X[3]), oar.to_tensor(label), ol.head_weight, ol.tail_weights,
            ol.cutoffs, ol.head_bias)
        assert list(oout.shape) == list(pout.shape) == []
        np.testing.assert_allclose(oout.numpy(), pout.numpy(), rtol=1e-5)
        np.testing.assert_allclose(oloss.numpy(), ploss.numpy(), rtol=1e-5)
