"""oar.metric against NumPy references and against numbers measured from Paddle 3.3.1."""
import numpy as np
import pytest

import oar
from oar import metric


def accuracy_batches(seed):
    """Three batches of [n, 5] scores (row 0 holds a tie) and [n, 1] labels."""
    rng = np.random.RandomState(seed)
    out = []
    for n in (8, 6, 7):
        pred = rng.rand(n, 5).astype(np.float32)
        pred[0, 1] = pred[0, 2]
        label = rng.randint(0, 5, (n, 1)).astype(np.int64)
        out.append((pred, label))
    return out


def binary_batches(seed):
    """Three batches of [n, 1] probabilities (the first three around 0.5) and 0/1 labels."""
    rng = np.random.RandomState(seed)
    out = []
    for n in (10, 7, 12):
        p = rng.rand(n, 1).astype(np.float32)
        p[:3, 0] = [0.5, 0.49999997, 0.5000001]
        out.append((p, rng.randint(0, 2, (n, 1)).astype(np.int64)))
    return out


def auc_batches(seed):
    rng = np.random.RandomState(seed)
    out = []
    for n in (50, 40, 33):
        s = rng.rand(n).astype(np.float32)
        label = (rng.rand(n) < 0.3 + 0.5 * s).astype(np.int64).reshape(-1, 1)
        out.append((np.stack([1 - s, s], 1), label))
    return out


def correct_reference(pred, label, maxk):
    """NumPy: 1.0 where the j-th highest score (stable: ties keep the lower class) is the label."""
    order = np.argsort(-pred, axis=-1, kind="stable")[..., :maxk]
    return (order == label.reshape(-1, 1)).astype(np.float32)


def auc_reference(batches, num_thresholds):
    """The bucketed ROC area, written as a plain loop over samples and buckets."""
    pos = np.zeros(num_thresholds + 1)
    neg = np.zeros(num_thresholds + 1)
    for preds, labels in batches:
        for p, lbl in zip(preds[:, 1], labels.reshape(-1)):
            (pos if lbl else neg)[int(p * num_thresholds)] += 1
    area, tp, fp = 0.0, 0.0, 0.0
    for i in range(num_thresholds, -1, -1):
        tp_prev, fp_prev = tp, fp
        tp += pos[i]
        fp += neg[i]
        area += abs(fp - fp_prev) * (tp + tp_prev) / 2.0
    return area / tp / fp if tp > 0 and fp > 0 else 0.0


# ---------------------------------------------------------------------------------- Accuracy


def test_accuracy_matches_paddle_numbers():
    m = metric.Accuracy(topk=(1, 3))
    assert m.name() == ["acc_top1", "acc_top3"]
    updates = []
    for pred, label in accuracy_batches(0):
        correct = m.compute(oar.to_tensor(pred), oar.to_tensor(label))
        assert isinstance(correct, oar.Tensor) and correct.dtype == oar.float32
        assert list(correct.shape) == [pred.shape[0], 3]
        np.testing.assert_array_equal(correct.numpy(), correct_reference(pred, label, 3))
        updates.append(m.update(correct))
    # Measured from paddle.metric.Accuracy(topk=(1, 3)) on the same batches.
    assert updates == [[0.125, 0.625], [0.16666666666666666, 0.8333333333333334],
                       [0.14285714285714285, 0.7142857142857143]]
    assert m.accumulate() == [0.14285714285714285, 0.7142857142857143]
    m.reset()
    assert m.accumulate() == [0.0, 0.0]


def test_accuracy_accumulates_over_batches_numpy_reference():
    m = metric.Accuracy()
    assert m.name() == ["acc"]
    hits, total = 0.0, 0
    for pred, label in accuracy_batches(4):
        correct = correct_reference(pred, label, 1)
        step = m.update(correct)  # NumPy input works too
        assert step == correct.sum() / len(pred)
        hits += correct.sum()
        total += len(pred)
        assert m.accumulate() == hits / total


def test_accuracy_label_layouts():
    pred = np.random.RandomState(1).rand(6, 4).astype(np.float32)
    label = np.array([0, 3, 1, 1, 2, 0])
    m = metric.Accuracy(topk=(2,), name="top2")
    assert m.name() == ["top2_top2"]
    want = correct_reference(pred, label, 2)
    for lab in (label, label.reshape(-1, 1), np.eye(4, dtype=np.float32)[label]):  # [N], [N,1], one-hot
        np.testing.assert_array_equal(m.compute(oar.to_tensor(pred), oar.to_tensor(lab)).numpy(), want)
    np.testing.assert_array_equal(m.compute(pred, label).numpy(), want)  # NumPy inputs
    # [batch, steps, classes] with [batch, steps, 1] labels
    seq = np.random.RandomState(2).rand(2, 3, 4).astype(np.float32)
    seq_label = np.random.RandomState(3).randint(0, 4, (2, 3, 1))
    got = m.compute(oar.to_tensor(seq), oar.to_tensor(seq_label)).numpy()
    order = np.argsort(-seq, axis=-1, kind="stable")[..., :2]
    np.testing.assert_array_equal(got, (order == seq_label).astype(np.float32))
    assert m.update(got) == got.sum() / 6


def test_accuracy_bad_arguments():
    with pytest.raises(TypeError, match="topk"):
        metric.Accuracy(topk=1)
    with pytest.raises(ValueError, match="topk"):
        metric.Accuracy(topk=(0,))
    m = metric.Accuracy(topk=(5,))
    with pytest.raises(ValueError, match="number of classes"):
        m.compute(oar.ones([2, 3]), oar.to_tensor([[0], [1]]))
    with pytest.raises(ValueError, match="correct"):
        m.update("not an array")


# ------------------------------------------------------------------------- functional accuracy


def test_functional_accuracy():
    rng = np.random.RandomState(5)
    x = rng.rand(9, 6).astype(np.float32)
    y = rng.randint(0, 6, (9, 1)).astype(np.int64)
    # Measured from paddle.metric.accuracy on the same input.
    paddle_values = {1: 0.3333333432674408, 2: 0.5555555820465088, 4: 0.7777777910232544}
    for k, want in paddle_values.items():
        got = metric.accuracy(oar.to_tensor(x), oar.to_tensor(y), k=k)
        assert got.dtype == oar.float32 and list(got.shape) == []
        assert got.item() == want
        top = np.argsort(-x, axis=1, kind="stable")[:, :k]
        assert got.item() == np.float32((top == y).any(axis=1).mean())
    correct = oar.to_tensor([5], dtype="int32")
    total = oar.to_tensor([7], dtype="int32")
    acc = metric.accuracy(oar.to_tensor(x), oar.to_tensor(y.astype(np.int32)), k=2, correct=correct,
                          total=total)
    assert correct.item() == 5 and total.item() == 9 and acc.item() == pytest.approx(5 / 9)
    empty = metric.accuracy(oar.zeros([0, 3]), oar.zeros([0, 1], dtype="int64"))
    assert empty.item() == 0.0


def test_functional_accuracy_bad_arguments():
    x = oar.ones([4, 3])
    with pytest.raises(ValueError, match="label"):
        metric.accuracy(x, oar.to_tensor([0, 1, 2, 0]))
    with pytest.raises(ValueError, match="rows"):
        metric.accuracy(x, oar.to_tensor([[0], [1], [2]]))
    with pytest.raises(ValueError, match="'k'"):
        metric.accuracy(x, oar.to_tensor([[0], [1], [2], [0]]), k=5)


# ---------------------------------------------------------------------- Precision and Recall


def test_precision_recall_match_paddle_numbers():
    pr, rc = metric.Precision(), metric.Recall()
    assert (pr.name(), rc.name()) == ("precision", "recall")
    for p, label in binary_batches(1):
        pr.update(p, label)
        rc.update(oar.to_tensor(p), oar.to_tensor(label))
    # Measured from paddle.metric.Precision / Recall on the same batches: 0.5 is a positive for
    # Precision (round half up) but a negative for Recall (round half to even).
    assert (pr.tp, pr.fp, pr.accumulate()) == (7, 9, 0.4375)
    assert (rc.tp, rc.fn, rc.accumulate()) == (3, 11, 0.21428571428571427)
    pr.reset()
    rc.reset()
    assert (pr.tp, pr.fp, pr.accumulate(), rc.tp, rc.fn, rc.accumulate()) == (0, 0, 0.0, 0, 0, 0.0)


def test_precision_recall_numpy_reference():
    rng = np.random.RandomState(9)
    pr, rc = metric.Precision(name="p"), metric.Recall(name="r")
    tp_p = fp = tp_r = fn = 0
    for n in (20, 1, 15):
        p = rng.rand(n).astype(np.float64)  # [N] layout
        label = rng.randint(0, 2, n)
        pr.update(p, label)
        rc.update(p.reshape(-1, 1), label.reshape(-1, 1))
        up, ur = np.floor(p + 0.5), np.rint(p)
        tp_p += np.sum((up == 1) & (label == 1))
        fp += np.sum((up == 1) & (label == 0))
        tp_r += np.sum((label == 1) & (ur == 1))
        fn += np.sum((label == 1) & (ur == 0))
        assert (pr.tp, pr.fp, rc.tp, rc.fn) == (tp_p, fp, tp_r, fn)
    assert pr.accumulate() == tp_p / (tp_p + fp) and rc.accumulate() == tp_r / (tp_r + fn)
    assert (pr.name(), rc.name()) == ("p", "r")


def test_precision_recall_bad_arguments():
    for cls in (metric.Precision, metric.Recall):
        m = cls()
        with pytest.raises(ValueError, match="preds"):
            m.update([0.5, 0.2], np.array([1, 0]))
        with pytest.raises(ValueError, match="labels"):
            m.update(np.array([0.5]), "1")
        with pytest.raises(ValueError, match="one value per sample"):
            m.update(np.ones((3, 2)), np.ones((3, 1)))
        with pytest.raises(ValueError, match="one value per sample"):
            m.update(np.ones(2), np.ones(3))


# ------------------------------------------------------------------------------------- Auc


@pytest.mark.parametrize("num_thresholds,paddle_value", [(4095, 0.588903743315508),
                                                         (200, 0.5883689839572193)])
def test_auc_matches_paddle_numbers(num_thresholds, paddle_value):
    m = metric.Auc(num_thresholds=num_thresholds)
    assert m.name() == "auc"
    for preds, labels in auc_batches(2):
        m.update(oar.to_tensor(preds), oar.to_tensor(labels))
    # Measured from paddle.metric.Auc(num_thresholds=...) on the same batches: bit-for-bit.
    assert m.accumulate() == paddle_value
    assert m.accumulate() == auc_reference(auc_batches(2), num_thresholds)
    m.reset()
    assert m.accumulate() == 0.0


def test_auc_numpy_reference_and_edges():
    rng = np.random.RandomState(11)
    batches = []
    for n in (100, 1, 64):
        s = rng.rand(n)
        batches.append((np.stack([1 - s, s], 1), (rng.rand(n) < s).astype(np.int32)))
    m = metric.Auc(num_thresholds=50, name="roc")
    for preds, labels in batches:
        m.update(preds, labels)  # NumPy, [N] labels
    assert m.accumulate() == auc_reference(batches, 50) and m.name() == "roc"
    # Well separated scores give 1.0; one class only gives 0.0 (as Paddle).
    perfect = metric.Auc()
    perfect.update(np.array([[0.9, 0.1], [0.2, 0.8], [0.0, 1.0]]), np.array([[0], [1], [1]]))
    assert perfect.accumulate() == 1.0
    one_class = metric.Auc()
    one_class.update(np.array([[0.9, 0.1], [0.2, 0.8]]), np.array([1, 1]))
    assert one_class.accumulate() == 0.0
    edges = metric.Auc(num_thresholds=10)  # scores exactly 0 and 1 land in the end buckets
    edges.update(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([0, 1]))
    assert edges.accumulate() == 1.0


def test_auc_bad_arguments():
    with pytest.raises(ValueError, match="curve"):
        metric.Auc(curve="XYZ")
    with pytest.raises(NotImplementedError, match="PR"):
        metric.Auc(curve="PR")
    with pytest.raises(ValueError, match="num_thresholds"):
        metric.Auc(num_thresholds=0)
    m = metric.Auc()
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        m.update(np.array([[0.5, 1.5]]), np.array([1]))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        m.update(np.array([[0.5, -0.5]]), np.array([1]))
    with pytest.raises(ValueError, match="NaN"):
        m.update(np.array([[0.5, np.nan]]), np.array([1]))
    with pytest.raises(ValueError, match="shape"):
        m.update(np.array([0.5, 0.2]), np.array([1, 0]))
    with pytest.raises(ValueError, match="labels"):
        m.update(np.array([[0.5, 0.5]]), [1])
    assert m.accumulate() == 0.0  # nothing was folded in by the failures


def test_metric_base_class():
    with pytest.raises(TypeError):
        metric.Metric()  # abstract

    class Mean(metric.Metric):
        def __init__(self):
            super().__init__()
            self.reset()

        def reset(self):
            self.total, self.count = 0.0, 0

        def update(self, values):
            self.total += float(np.sum(values))
            self.count += np.size(values)

        def accumulate(self):
            return self.total / self.count

        def name(self):
            return "mean"

    m = Mean()
    assert m.compute(1, 2) == (1, 2)  # the default compute passes its inputs through
    m.update(np.array([1.0, 2.0]))
    m.update(np.array([6.0]))
    assert m.accumulate() == 3.0 and m.name() == "mean"


# --------------------------------------------------------------------------- live with Paddle


def test_live_against_paddle():
    paddle = pytest.importorskip("paddle")
    rng = np.random.RandomState(21)
    for topk in ((1,), (1, 2, 5), (3,)):
        ours, theirs = metric.Accuracy(topk=topk), paddle.metric.Accuracy(topk=topk)
        assert ours.name() == theirs.name()
        for n in (16, 3, 9):
            pred = rng.rand(n, 7).astype(np.float32)
            pred[:, 3] = pred[:, 4]  # ties
            label = rng.randint(0, 7, (n, 1))
            a = ours.compute(oar.to_tensor(pred), oar.to_tensor(label))
            b = theirs.compute(paddle.to_tensor(pred), paddle.to_tensor(label))
            np.testing.assert_array_equal(a.numpy(), b.numpy())
            assert ours.update(a) == theirs.update(b)
        assert ours.accumulate() == theirs.accumulate()
    for k in (1, 3):
        x = rng.rand(11, 5).astype(np.float32)
        y = rng.randint(0, 5, (11, 1))
        ours = metric.accuracy(oar.to_tensor(x), oar.to_tensor(y), k=k)
        theirs = paddle.metric.accuracy(paddle.to_tensor(x), paddle.to_tensor(y), k=k)
        assert ours.item() == float(theirs)
    pr, ppr = metric.Precision(), paddle.metric.Precision()
    rc, prc = metric.Recall(), paddle.metric.Recall()
    auc, pauc = metric.Auc(num_thresholds=300), paddle.metric.Auc(num_thresholds=300)
    for n in (30, 5, 18):
        s = rng.rand(n).astype(np.float32)
        s[:2] = 0.5
        label = rng.randint(0, 2, (n, 1))
        for m, pm in ((pr, ppr), (rc, prc)):
            m.update(s.reshape(-1, 1), label)
            pm.update(s.reshape(-1, 1), label)
            assert m.accumulate() == pm.accumulate()
        auc.update(np.stack([1 - s, s], 1), label)
        pauc.update(np.stack([1 - s, s], 1), label)
        assert auc.accumulate() == pauc.accumulate()


def test_metric_metrics_module_path():
    """`from paddle.metric.metrics import Accuracy` works: Paddle's module path of the metric classes."""
    from oar.metric import metrics
    from oar.metric.metrics import Accuracy, Auc, Metric, Precision, Recall, accuracy  # noqa: F401
    for name in ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]:
        assert getattr(metrics, name) is getattr(metric, name)
    acc = metrics.Accuracy()
    acc.update(acc.compute(oar.to_tensor([[0.1, 0.9], [0.8, 0.2]]), oar.to_tensor([[1], [1]])))
    assert acc.accumulate() == 0.5
