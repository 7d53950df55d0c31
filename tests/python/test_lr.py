"""oar.optimizer.lr: every scheduler's learning-rate sequence against numbers measured from
Paddle 3.3.1 (constants below) and, when paddle is installed, against Paddle live; state_dict,
verbose printing and argument errors."""
import math

import numpy as np
import pytest

import oar

L = oar.optimizer.lr

# (id, factory(lr_module) -> scheduler, steps, step kind)
CASES = [
    ('noam', lambda L: L.NoamDecay(64, 4, learning_rate=2.0), 8, None),
    ('piecewise', lambda L: L.PiecewiseDecay([2, 5], [1.0, 0.5, 0.1]), 8, None),
    ('natural_exp', lambda L: L.NaturalExpDecay(0.5, 0.3), 8, None),
    ('inverse_time', lambda L: L.InverseTimeDecay(0.5, 0.5), 8, None),
    ('polynomial', lambda L: L.PolynomialDecay(0.5, 5, end_lr=0.01, power=2.0), 8, None),
    ('polynomial_cycle', lambda L: L.PolynomialDecay(0.5, 3, cycle=True), 9, None),
    ('linear_warmup', lambda L: L.LinearWarmup(0.5, 3, 0.0, 0.5), 6, None),
    ('linear_warmup_sched', lambda L: L.LinearWarmup(L.ExponentialDecay(0.5, 0.5), 3, 0.1, 0.5), 7, None),
    ('exponential', lambda L: L.ExponentialDecay(0.5, 0.8), 8, None),
    ('multistep', lambda L: L.MultiStepDecay(0.5, [2, 4, 7], gamma=0.5), 9, None),
    ('step', lambda L: L.StepDecay(0.5, 3, gamma=0.2), 8, None),
    ('lambda', lambda L: L.LambdaDecay(0.5, lambda e: 0.9 ** e + 0.01 * e), 8, None),
    ('multiplicative', lambda L: L.MultiplicativeDecay(0.5, lambda e: 0.95), 8, None),
    ('cosine', lambda L: L.CosineAnnealingDecay(0.5, 4, eta_min=0.05), 12, None),
    ('cosine_jump', lambda L: L.CosineAnnealingDecay(0.5, 4), 6, 'epoch'),
    ('onecycle', lambda L: L.OneCycleLR(1.0, 10), 10, None),
    ('onecycle_three_linear', lambda L: L.OneCycleLR(1.0, 12, phase_pct=0.25, anneal_strategy='linear',
                                                      three_phase=True), 12, None),
    ('cyclic', lambda L: L.CyclicLR(0.1, 1.0, 2, 3), 12, None),
    ('cyclic_tri2', lambda L: L.CyclicLR(0.1, 1.0, 2, mode='triangular2'), 12, None),
    ('cyclic_exp', lambda L: L.CyclicLR(0.1, 1.0, 2, mode='exp_range', exp_gamma=0.9), 12, None),
    ('linear_lr', lambda L: L.LinearLR(0.5, 4, start_factor=0.25, end_factor=0.75), 7, None),
    ('warm_restarts', lambda L: L.CosineAnnealingWarmRestarts(0.5, 3, T_mult=2, eta_min=0.01), 12, None),
    ('warm_restarts_jump', lambda L: L.CosineAnnealingWarmRestarts(0.5, 2, T_mult=2), 8, 'epoch'),
    ('reduce_on_plateau', lambda L: L.ReduceOnPlateau(1.0, patience=1, factor=0.5, cooldown=1), 10, 'metric'),
    ('reduce_on_plateau_max_abs', lambda L: L.ReduceOnPlateau(1.0, mode='max', threshold_mode='abs',
                                                              threshold=0.5, patience=0), 8, 'metric'),
]
METRICS = [1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.7, 0.8, 0.9]


def sequence(L, make, steps, kind):
    s = make(L)
    out = [s()]
    for i in range(steps):
        if kind == 'metric':
            s.step(METRICS[i])
        elif kind == 'epoch':
            s.step(epoch=[3, 1, 5, 2, 7, 4, 0, 6][i])
        else:
            s.step()
        out.append(s())
    return out

# Sequences [lr before any step, after step 1, ...] measured with paddle.optimizer.lr 3.3.1.
PADDLE_SEQUENCES = {
    'noam': [0.0, 0.03125, 0.0625, 0.09375, 0.125, 0.11180339887498948, 0.10206207261596575, 0.09449111825230681, 0.08838834764831845],
    'piecewise': [1.0, 1.0, 0.5, 0.5, 0.5, 0.1, 0.1, 0.1, 0.1],
    'natural_exp': [0.5, 0.37040911034085894, 0.2744058180470132, 0.20328482987029958, 0.15059710595610107, 0.11156508007421491, 0.08264944411079328, 0.06122821412649095, 0.045358976644706256],
    'inverse_time': [0.5, 0.3333333333333333, 0.25, 0.2, 0.16666666666666666, 0.14285714285714285, 0.125, 0.1111111111111111, 0.1],
    'polynomial': [0.5, 0.32360000000000005, 0.1864, 0.0884, 0.029599999999999987, 0.01, 0.01, 0.01, 0.01],
    'polynomial_cycle': [0.5, 0.3333666666666667, 0.16673333333333334, 0.0001, 0.16673333333333334, 0.08341666666666665, 0.0001, 0.11118888888888889, 0.055644444444444476, 0.0001],
    'linear_warmup': [0.0, 0.16666666666666666, 0.3333333333333333, 0.5, 0.5, 0.5, 0.5],
    'linear_warmup_sched': [0.1, 0.23333333333333334, 0.3666666666666667, 0.5, 0.25, 0.125, 0.0625, 0.03125],
    'exponential': [0.5, 0.4, 0.32000000000000006, 0.25600000000000006, 0.20480000000000004, 0.16384000000000004, 0.13107200000000005, 0.10485760000000004, 0.08388608000000004],
    'multistep': [0.5, 0.5, 0.25, 0.25, 0.125, 0.125, 0.125, 0.0625, 0.0625, 0.0625],
    'step': [0.5, 0.5, 0.5, 0.1, 0.1, 0.1, 0.020000000000000004, 0.020000000000000004, 0.020000000000000004],
    'lambda': [0.5, 0.455, 0.41500000000000004, 0.37950000000000006, 0.34805, 0.32024500000000006, 0.29572050000000005, 0.27414845000000004, 0.25523360500000003],
    'multiplicative': [0.5, 0.475, 0.45125, 0.42868749999999994, 0.40725312499999994, 0.38689046874999994, 0.3675459453124999, 0.34916864804687486, 0.3317102156445311],
    'cosine': [0.5, 0.4340990257669732, 0.275, 0.11590097423302684, 0.05, 0.1159009742330268, 0.275, 0.43409902576697335, 0.5000000000000002, 0.4340990257669734, 0.2750000000000002, 0.11590097423302705, 0.05],
    'cosine_jump': [0.5, 0.07322330470336313, 0.42677669529663687, 0.07322330470336308, 0.25, 0.42677669529663687, 0.0],
    'onecycle': [0.040000000000000036, 0.52, 1.0, 0.9504893855078144, 0.8117637264392739, 0.6112993409314593, 0.38880065906854067, 0.1883362735607262, 0.04961061449218561, 0.0001, 0.049610614492185554],
    'onecycle_three_linear': [0.04, 0.52, 1.0, 0.52, 0.040000000000000036, 0.034300000000000004, 0.0286, 0.022900000000000004, 0.017200000000000003, 0.011500000000000003, 0.0058000000000000065, 0.00010000000000000286, -0.005599999999999994],
    'cyclic': [0.1, 0.5499999999999999, 0.9999999999999998, 0.6999999999999998, 0.3999999999999999, 0.1, 0.5500000000000004, 0.9999999999999998, 0.6999999999999998, 0.40000000000000024, 0.1, 0.5500000000000004, 0.9999999999999998],
    'cyclic_tri2': [0.1, 0.55, 1.0, 0.55, 0.1, 0.325, 0.55, 0.325, 0.1, 0.21250000000000002, 0.325, 0.21250000000000002, 0.1],
    'cyclic_exp': [0.1, 0.505, 0.8290000000000001, 0.42805000000000004, 0.1, 0.3657205, 0.5782969000000001, 0.3152336050000001, 0.1, 0.27433922005000005, 0.41381059609000015, 0.24121476824050003, 0.1],
    'linear_lr': [0.125, 0.1875, 0.25, 0.3125, 0.375, 0.375, 0.375, 0.375],
    'warm_restarts': [0.5, 0.3775, 0.13250000000000006, 0.5, 0.4671762239271875, 0.3775, 0.255, 0.13250000000000006, 0.04282377607281252, 0.5, 0.4916518274408217, 0.4671762239271875, 0.4282411613907041],
    'warm_restarts_jump': [0.5, 0.42677669529663687, 0.25, 0.07322330470336313, 0.5, 0.4809698831278217, 0.25, 0.5, 0.5],
    'reduce_on_plateau': [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25],
    'reduce_on_plateau_max_abs': [1.0, 1.0, 0.1, 0.010000000000000002, 0.0010000000000000002, 0.00010000000000000003, 1.0000000000000004e-05, 1.0000000000000004e-06, 1.0000000000000005e-07],
}


@pytest.mark.parametrize('case', CASES, ids=lambda c: c[0])
def test_sequence_matches_measured(case):
    cid, make, steps, kind = case
    np.testing.assert_allclose(sequence(L, make, steps, kind), PADDLE_SEQUENCES[cid], rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize('case', CASES, ids=lambda c: c[0])
def test_sequence_matches_paddle(case):
    paddle = pytest.importorskip("paddle")
    cid, make, steps, kind = case
    np.testing.assert_allclose(sequence(L, make, steps, kind),
                               sequence(paddle.optimizer.lr, make, steps, kind), rtol=1e-15, atol=0)


def test_all_names():
    paddle = pytest.importorskip("paddle")
    assert sorted(L.__all__) == sorted(paddle.optimizer.lr.__all__)


def test_formulas_by_hand():
    s = L.StepDecay(0.5, 2, gamma=0.5)
    got = []
    for _ in range(5):
        got.append(s())
        s.step()
    assert got == [0.5, 0.5, 0.25, 0.25, 0.125]
    s = L.CosineAnnealingDecay(1.0, 10)
    for e in range(1, 10):
        s.step()
        assert math.isclose(s(), (1 + math.cos(math.pi * e / 10)) / 2, rel_tol=1e-12, abs_tol=1e-15)
    s = L.LinearWarmup(0.4, 4, 0.0, 0.4)
    got = []
    for e in (0, 2, 4, 6):
        s.step(e)
        got.append(s())
    assert got == [0.0, 0.2, 0.4, 0.4]


def test_state_dict_round_trip():
    s = L.ReduceOnPlateau(1.0, patience=0)
    s.step(1.0)
    s.step(2.0)
    sd = s.state_dict()
    assert sd == {'cooldown_counter': 0, 'best': 1.0, 'num_bad_epochs': 0, 'last_epoch': 2, 'last_lr': 0.1}
    t = L.ReduceOnPlateau(1.0, patience=0)
    t.set_state_dict(sd)
    assert t() == 0.1 and t.best == 1.0
    w = L.LinearWarmup(L.StepDecay(0.5, 2), 2, 0.0, 0.5)
    for _ in range(5):
        w.step()
    sd = w.state_dict()
    assert sd['last_epoch'] == 5 and 'LinearWarmup_LR' in sd
    w2 = L.LinearWarmup(L.StepDecay(0.5, 2), 2, 0.0, 0.5)
    with pytest.warns(UserWarning, match="unused values"):  # as Paddle: the nested entry
        w2.set_state_dict(sd)
    assert w2() == w() and w2.learning_rate.last_epoch == w.learning_rate.last_epoch
    with pytest.raises(RuntimeError, match="last_lr"):
        L.StepDecay(0.5, 2).set_state_dict({'last_epoch': 1})


def test_reduce_on_plateau_metrics_forms():
    s = L.ReduceOnPlateau(1.0, patience=0)
    s.step(oar.to_tensor([1.0]))
    s.step(np.array([2.0]))
    assert s() == 0.1
    with pytest.raises(ValueError, match="size"):
        s.step(oar.to_tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="metrics"):
        s.step("bad")


def test_verbose(capsys):
    s = L.ExponentialDecay(0.5, 0.5, verbose=True)
    s.step()
    assert capsys.readouterr().out.splitlines()[-1] == "Epoch 1: ExponentialDecay set learning rate to 0.25."


def test_custom_scheduler():
    class Halving(L.LRScheduler):
        def get_lr(self):
            return self.base_lr / 2 ** self.last_epoch

    s = Halving(1.0)
    s.step()
    assert s() == 0.5 and s.state_dict() == {'last_epoch': 1, 'last_lr': 0.5}
    with pytest.raises(NotImplementedError):
        L.LRScheduler(0.1)


def test_argument_errors():
    with pytest.raises(TypeError, match="learning_rate"):
        L.ExponentialDecay("0.1", 0.5)
    with pytest.raises(ValueError, match="learning rate"):
        L.InverseTimeDecay(-0.1, 0.5)
    with pytest.raises(ValueError, match="gamma"):
        L.ExponentialDecay(0.1, 1.5)
    with pytest.raises(ValueError, match="boundaries"):
        L.PiecewiseDecay([], [0.1])
    with pytest.raises(ValueError, match="values"):
        L.PiecewiseDecay([1, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="decay_steps"):
        L.PolynomialDecay(0.1, 0)
    with pytest.raises(ValueError, match="end_lr"):
        L.LinearWarmup(0.1, 2, 0.5, 0.1)
    with pytest.raises(TypeError, match="learning_rate"):
        L.LinearWarmup("x", 2, 0.0, 0.1)
    with pytest.raises(ValueError, match="milestones"):
        L.MultiStepDecay(0.1, [3, 2])
    with pytest.raises(TypeError, match="milestones"):
        L.MultiStepDecay(0.1, 3)
    with pytest.raises(TypeError, match="step_size"):
        L.StepDecay(0.1, 2.0)
    with pytest.raises(TypeError, match="lr_lambda"):
        L.LambdaDecay(0.1, 3)
    with pytest.raises(ValueError, match="mode"):
        L.ReduceOnPlateau(0.1, mode='avg')
    with pytest.raises(ValueError, match="factor"):
        L.ReduceOnPlateau(0.1, factor=2.0)
    with pytest.raises(TypeError, match="T_max"):
        L.CosineAnnealingDecay(0.1, 2.5)
    with pytest.raises(ValueError, match="phase_pct"):
        L.OneCycleLR(0.1, 10, phase_pct=1.5)
    with pytest.raises(ValueError, match="anneal_strategy"):
        L.OneCycleLR(0.1, 10, anneal_strategy='exp')
    with pytest.raises(ValueError, match="total steps"):
        s = L.OneCycleLR(0.1, 2)
        for _ in range(3):
            s.step()
    with pytest.raises(ValueError, match="mode"):
        L.CyclicLR(0.1, 1.0, 2, mode='sine')
    with pytest.raises(ValueError, match="start_factor"):
        L.LinearLR(0.1, 4, start_factor=0.0)
    with pytest.raises(ValueError, match="T_0"):
        L.CosineAnnealingWarmRestarts(0.1, 0)
    with pytest.raises(ValueError, match="non-negative"):
        L.CosineAnnealingWarmRestarts(0.1, 2).step(-1)
