"""oar.Model, callbacks, summary and flops: Paddle's loops, outputs, logs and checkpoints."""
import io
import os
import re
from contextlib import redirect_stdout

import numpy as np
import pytest

import oar
import oar.nn as nn


class Blobs(oar.io.Dataset):
    """Two Gaussian blobs in 4-D: a problem a linear model learns in a few epochs."""

    def __init__(self, n, seed=0):
        rng = np.random.RandomState(seed)
        self.y = (np.arange(n) % 2).astype(np.int64)[:, None]
        self.x = (rng.randn(n, 4) + 1.5 * (2 * self.y - 1)).astype(np.float32)

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


def make_model(lr=0.05):
    oar.seed(0)
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    model = oar.Model(net)
    model.prepare(oar.optimizer.Adam(learning_rate=lr, parameters=model.parameters()), nn.CrossEntropyLoss(),
                  oar.metric.Accuracy(topk=(1, 2)))
    return model


def run(fn):
    out = io.StringIO()
    with redirect_stdout(out):
        result = fn()
    return result, out.getvalue()


def test_fit_evaluate_predict_and_logs(tmp_path):
    model = make_model()
    _, log = run(lambda: model.fit(Blobs(200), Blobs(50, seed=1), batch_size=16, epochs=2, log_freq=5, verbose=2,
                                   save_dir=str(tmp_path / "ckpt")))
    lines = log.splitlines()
    assert lines[0] == ("The loss value printed in the log is the current step, and the metric is the average "
                        "value of previous steps.")
    assert lines[1] == "Epoch 1/2"
    assert re.fullmatch(r"step  5/13 - loss: \d\.\d{4} - acc_top1: \d\.\d{4} - acc_top2: \d\.\d{4} - "
                        r"\d+(us|ms|s)/step", lines[2]), lines[2]
    assert re.fullmatch(r"step 13/13 - loss: .* - \d+(us|ms|s)/step", lines[4])
    assert f"save checkpoint at {tmp_path / 'ckpt' / '0'}" in lines
    assert "Eval begin..." in lines and "Eval samples: 50" in lines and "Epoch 2/2" in lines
    assert sorted(os.listdir(tmp_path / "ckpt")) == ["0.pdopt", "0.pdparams", "1.pdopt", "1.pdparams",
                                                     "final.pdopt", "final.pdparams"]
    result, log = run(lambda: model.evaluate(Blobs(50, seed=1), batch_size=16, verbose=2))
    assert set(result) == {"loss", "acc_top1", "acc_top2"}
    assert isinstance(result["loss"], list) and len(result["loss"]) == 1
    assert result["acc_top1"] > 0.9 and result["acc_top2"] == 1.0
    assert log.splitlines()[-1] == "Eval samples: 50"
    preds = model.predict(Blobs(20), batch_size=8, verbose=0)
    assert len(preds) == 1 and [p.shape for p in preds[0]] == [(8, 2), (8, 2), (4, 2)]
    stacked = model.predict(Blobs(20), batch_size=8, stack_outputs=True, verbose=0)
    assert stacked[0].shape == (20, 2)
    np.testing.assert_allclose(stacked[0][:8], preds[0][0])


def test_progress_bar_shows_eta():
    model = make_model()
    _, log = run(lambda: model.fit(Blobs(64), batch_size=8, epochs=1, log_freq=2, verbose=1))
    assert "[" in log and "ETA:" in log and "\r" in log and "step 8/8 [==============================]" in log


def test_batch_methods_return_paddle_shapes():
    model = make_model()
    losses, metrics = model.train_batch([np.ones([3, 4], np.float32)], [np.ones([3, 1], np.int64)])
    assert len(losses) == 1 and losses[0].shape == () and losses[0].dtype == np.float32
    assert len(metrics) == 1 and len(metrics[0]) == 2
    losses, metrics = model.eval_batch([np.ones([3, 4], np.float32)], [np.ones([3, 1], np.int64)])
    assert losses[0].shape == ()
    out = model.predict_batch([np.ones([3, 4], np.float32)])
    assert isinstance(out, list) and out[0].shape == (3, 2)


def test_save_load_round_trip(tmp_path):
    model = make_model()
    run(lambda: model.fit(Blobs(64), batch_size=16, epochs=1, verbose=0))
    before = model.evaluate(Blobs(50, seed=1), batch_size=50, verbose=0)
    model.save(str(tmp_path / "m" / "lenet"))
    other = make_model(lr=0.5)
    other.load(str(tmp_path / "m" / "lenet"))
    after = other.evaluate(Blobs(50, seed=1), batch_size=50, verbose=0)
    assert before == after
    for a, b in zip(model.parameters(), other.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(FileNotFoundError, match="nothing.pdparams"):
        other.load(str(tmp_path / "nothing"))


def test_load_skip_mismatch(tmp_path):
    model = make_model()
    model.save(str(tmp_path / "a"))
    oar.seed(1)
    wide = oar.Model(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)))
    with pytest.raises(ValueError, match="2.bias: expected shape \\[3\\], got \\[2\\]"):
        wide.load(str(tmp_path / "a"))
    with pytest.warns(UserWarning, match="skip 2.weight"):
        wide.load(str(tmp_path / "a"), skip_mismatch=True)
    np.testing.assert_array_equal(wide.network[0].weight.numpy(), model.network[0].weight.numpy())


def test_early_stopping_and_lr_scheduler(tmp_path):
    oar.seed(0)
    net = nn.Linear(4, 2)
    model = oar.Model(net)
    scheduler = oar.optimizer.lr.StepDecay(learning_rate=0.0, step_size=1, gamma=0.5)
    model.prepare(oar.optimizer.SGD(learning_rate=scheduler, parameters=model.parameters()), nn.CrossEntropyLoss(),
                  oar.metric.Accuracy())
    stop = oar.callbacks.EarlyStopping(monitor="loss", patience=0, verbose=0, save_best_model=False)
    run(lambda: model.fit(Blobs(32), Blobs(32, seed=1), batch_size=16, epochs=10, verbose=0, callbacks=[stop]))
    # lr 0: the loss never improves after the first evaluation, so patience 0 stops at epoch 2.
    assert stop.stopped_epoch == 2
    assert scheduler.last_epoch == 4  # stepped once per batch (2 batches x 2 epochs)


PROGRESS_CASES = [  # (num, current step, values): float steps and totals, and every kind of value
    (10, 3.0, [("loss", 0.5)]), (10.0, 3, [("loss", [0.5])]), (None, 2.5, [("acc", 1)]),
    (100, 7, [("loss", 0.0), ("n", 3), ("a", [0.25, 1e-5]), ("f", np.float32(2.5)),
              ("arr", np.array([0.5], "float32")), ("s", "x")]),
    (5, 5, []),
]


def _progress_lines(progressbar_cls, verbose):
    lines = []
    for num, step, values in PROGRESS_CASES:
        _, text = run(lambda: progressbar_cls(num=num, verbose=verbose).update(step, values))
        text = re.sub(r"\d+(us|ms|s)/step", "T/step", text.replace("\b", ""))
        lines.append(re.sub(r"ETA: \S+", "ETA: E", text))
    return lines


@pytest.mark.parametrize("verbose", [1, 2])
def test_progress_bar_formats_as_paddle(verbose):
    from oar.hapi.progressbar import ProgressBar
    ours = _progress_lines(ProgressBar, verbose)
    # Float steps used to raise ValueError: Unknown format code 'd' for object of type 'float'.
    assert ours[0].strip() == ("step  3/10 [========>.....................] - loss: 0.5000 - ETA: E - T/step"
                               if verbose == 1 else "step  3/10 - loss: 0.5000 - T/step")
    assert ours[1] == ours[0]
    assert ours[2].strip() == "step 2.5 - acc: 1 - T/step" and ours[2].endswith("\n")
    assert "loss: 0.0000e+00 - n: 3 - a: 0.2500 1.0000e-05 - f: 2.5000" in ours[3]
    assert ("arr: [0.5]" if verbose == 1 else "arr: 0.5000") in ours[3]
    with pytest.raises(TypeError, match=r"num should be None or integer \(> 0\)"):
        ProgressBar(num=0)
    paddle = pytest.importorskip("paddle")
    from paddle.hapi.progressbar import ProgressBar as Theirs
    assert ours == _progress_lines(Theirs, verbose)


class Recorder(oar.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.calls, self.metrics = [], None

    def on_train_begin(self, logs=None):
        self.metrics = self.params["metrics"]
        self.calls.append("train_begin")

    def on_epoch_end(self, epoch, logs=None):
        self.calls.append(f"epoch_end {epoch} {sorted(logs)}")


def test_fit_verbose_0_with_callbacks(tmp_path):
    """verbose=0 with callbacks: a list, or one callback alone (Paddle accepts both); the callbacks
    see the metric names ('loss' first), and EarlyStopping gets fit's save_dir from config_callbacks."""
    model = make_model()
    one = Recorder()
    _, log = run(lambda: model.fit(Blobs(32), batch_size=16, epochs=2, verbose=0, callbacks=one))
    assert log == ""
    assert one.metrics == ["loss", "acc_top1", "acc_top2"]
    assert one.calls == ["train_begin"] + [f"epoch_end {e} ['acc_top1', 'acc_top2', 'batch_size', 'loss', 'step']"
                                           for e in (0, 1)]
    stop = oar.callbacks.EarlyStopping(monitor="acc_top1", patience=5, verbose=0)
    both = [Recorder(), stop, oar.callbacks.ProgBarLogger(verbose=0)]
    _, log = run(lambda: model.fit(Blobs(32), Blobs(16, seed=1), batch_size=16, epochs=1, verbose=0,
                                   callbacks=both, save_dir=str(tmp_path)))
    # No progress lines; ModelCheckpoint still reports its saves (as Paddle's does).
    assert [line.split(" at ")[0] for line in log.splitlines()] == ["save checkpoint"] * 2
    assert both[0].metrics == ["loss", "acc_top1", "acc_top2"]
    assert stop.save_dir == str(tmp_path) and os.path.exists(tmp_path / "best_model.pdparams")
    with pytest.warns(UserWarning, match="EarlyStopping needs validation data"):
        run(lambda: model.fit(Blobs(32), batch_size=16, epochs=1, verbose=0, callbacks=[stop]))


def _summary(cbks):
    return [type(c).__name__ for c in cbks], {k: v for k, v in cbks.callbacks[0].params.items()}


def test_config_callbacks_takes_metric_names_as_paddle():
    """config_callbacks(metrics=...) takes the names (Model._metrics_name()), as Paddle's; it raised
    AttributeError: 'str' object has no attribute 'name'."""
    from oar.hapi.callbacks import config_callbacks
    cbks = config_callbacks(Recorder(), model=None, epochs=2, steps=5, verbose=0, metrics=["loss", "acc"])
    names, params = _summary(cbks)
    assert names == ["Recorder", "ModelCheckpoint", "LRScheduler"]
    assert params == {"batch_size": None, "epochs": 2, "steps": 5, "verbose": 0, "metrics": ["loss", "acc"]}
    assert _summary(config_callbacks([], verbose=2, metrics=["loss"], mode="test"))[0][0] == "ProgBarLogger"
    assert _summary(config_callbacks(None, metrics=["loss"], mode="test"))[1]["metrics"] == []
    # Paddle's CallbackList API, used by code that drives callbacks itself.
    rec = Recorder()
    cbks = config_callbacks([rec], verbose=0, metrics=["loss"])
    cbks.on_begin("train")
    cbks.on_epoch_end(0, {"loss": 1.0})
    cbks.on_batch_end("eval", 0, {})
    assert rec.calls == ["train_begin", "epoch_end 0 ['loss']"] and list(cbks)[0] is rec
    with pytest.raises(AssertionError, match="mode should be train, eval or predict"):
        cbks.on_begin("test")
    paddle = pytest.importorskip("paddle")
    from paddle.hapi.callbacks import config_callbacks as theirs

    class Theirs(paddle.callbacks.Callback):
        pass

    cb = theirs(Theirs(), model=None, epochs=2, steps=5, verbose=0, metrics=["loss", "acc"])
    assert [type(c).__name__ for c in cb] == ["Theirs", "ModelCheckpoint", "LRScheduler"]
    assert dict(cb.callbacks[0].params) == params
    assert model_metrics_names(paddle) == model_metrics_names(oar) == (["loss", "acc"], ["acc"])


def model_metrics_names(lib):
    model = lib.Model(lib.nn.Linear(2, 2))
    model.prepare(None, lib.nn.CrossEntropyLoss(), lib.metric.Accuracy())
    with_loss = model._metrics_name()
    model.prepare(None, None, lib.metric.Accuracy())
    return with_loss, model._metrics_name()


def test_visualdl_log_and_plot(tmp_path):
    model = make_model()
    log_dir = str(tmp_path / "vdl")
    run(lambda: model.fit(Blobs(64), Blobs(32, seed=1), batch_size=16, epochs=2, verbose=0,
                          callbacks=[oar.callbacks.VisualDL(log_dir)]))
    from oar.utils.scalar_log import read_scalars
    from oar.utils import plot_scalars
    series = read_scalars(log_dir)
    assert [s for s, _ in series["train/loss"]] == list(range(1, 9))
    assert len(series["eval/acc_top1"]) == 2 and "train/lr" in series
    out = str(tmp_path / "curves.html")
    _, printed = run(lambda: plot_scalars.main([log_dir, "-o", out]))
    page = open(out).read()
    assert page.count("<svg") == len(series) and "train/loss" in page and "wrote" in printed
    with open(os.path.join(log_dir, "scalars.jsonl"), "a") as f:
        f.write('{"tag": "train/loss", "st')  # a torn last line (crash while writing) is skipped
    assert len(read_scalars(log_dir)["train/loss"]) == 8


class LeNetLike(nn.Layer):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
                                      nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10))

    def forward(self, x):
        return self.fc(oar.flatten(self.features(x), 1))


def test_flops_matches_paddles_documented_table():
    with oar.utils.unique_name.guard():
        net = LeNetLike()
        total, log = run(lambda: oar.flops(net, [1, 1, 28, 28], print_detail=True))
    # Paddle's documented total and rows for this network (paddle.flops docstring).
    assert total == 347560
    assert "|   conv2d_0   |  [1, 1, 28, 28] |  [1, 6, 28, 28] |   60   | 47040  |" in log
    assert "|   linear_2   |     [1, 84]     |     [1, 10]     |  850   |  840   |" in log
    assert log.rstrip().endswith("Total Flops: 347560     Total Params: 61610")


def test_summary_matches_paddle_layout():
    with oar.utils.unique_name.guard():
        result, log = run(lambda: oar.summary(LeNetLike(), (1, 1, 28, 28)))
    assert result == {"total_params": 61610, "trainable_params": 61610}
    lines = log.splitlines()
    # Rows measured from paddle.summary on this network.
    assert lines[1] == " Layer (type)       Input Shape          Output Shape         Param #    "
    assert lines[3] == "   Conv2D-1       [[1, 1, 28, 28]]      [1, 6, 28, 28]          60       "
    assert lines[9] == "   Linear-1          [[1, 400]]            [1, 120]           48,120     "
    assert "Total params: 61,610" in lines and "Params size (MB): 0.24" in lines
    assert "Forward/backward pass size (MB): 0.11" in lines and "Estimated Total Size (MB): 0.35" in lines


def _summary_net(mod):
    class Block(mod.Layer):
        def __init__(self):
            super().__init__()
            self.fc, self.bn = mod.Linear(4, 4), mod.BatchNorm1D(4)
            self.extra = self.create_parameter([3])

        def forward(self, x):
            return self.bn(self.fc(x)) + x

    net = mod.Sequential(Block(), mod.Linear(4, 2), mod.ReLU())
    net[1].weight.stop_gradient = True
    return net


def test_summary_live_against_paddle():
    paddle = pytest.importorskip("paddle")
    with paddle.utils.unique_name.guard():
        expected, their_log = run(lambda: paddle.summary(_summary_net(paddle.nn), (3, 4)))
    with oar.utils.unique_name.guard():
        got, our_log = run(lambda: oar.summary(_summary_net(nn), (3, 4)))
    assert our_log == their_log
    assert {k: int(v) for k, v in got.items()} == {k: int(v) for k, v in expected.items()}


def test_train_batch_losses_match_paddle():
    paddle = pytest.importorskip("paddle")
    rng = np.random.RandomState(3)
    x = rng.randn(6, 4).astype(np.float32)
    y = rng.randint(0, 3, [6, 1]).astype(np.int64)
    theirs = paddle.nn.Sequential(paddle.nn.Linear(4, 5), paddle.nn.Tanh(), paddle.nn.Linear(5, 3))
    ours = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 3))
    ours.set_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    pm, om = paddle.Model(theirs), oar.Model(ours)
    pm.prepare(paddle.optimizer.SGD(0.1, parameters=pm.parameters()), paddle.nn.CrossEntropyLoss(),
               paddle.metric.Accuracy())
    om.prepare(oar.optimizer.SGD(0.1, parameters=om.parameters()), nn.CrossEntropyLoss(), oar.metric.Accuracy())
    for _ in range(5):
        (pl,), (pa,) = pm.train_batch([x], [y])
        (ol,), (oa,) = om.train_batch([x], [y])
        np.testing.assert_allclose(ol, pl, rtol=1e-5)
        np.testing.assert_allclose(oa, pa)
