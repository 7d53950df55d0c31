"""The fused ops (oar/ops/specs/fused.yaml) that the fusion passes (oar/pass) rewrite chains
into: each must compute what its unfused chain of ops computes, in float32 and float64."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F
from op_test import assert_close, rand

ACTIVATIONS = {
    "none": lambda t: t,
    "relu": F.relu,
    "gelu": lambda t: F.gelu(t, approximate=False),
    "gelu_tanh": lambda t: F.gelu(t, approximate=True),
    "silu": F.silu,
    "sigmoid": F.sigmoid,
    "tanh": oar.tanh,
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
def test_fused_activation_matches_the_activation_op(dtype, activation):
    x = oar.to_tensor(rand((3, 5), dtype, seed=1))
    assert_close(oar.fused_activation(x, activation), ACTIVATIONS[activation](x).numpy(), dtype, activation)


def test_fused_activation_rejects_unknown_names():
    with pytest.raises(ValueError, match="fused_activation: argument 'activation' must be one of"):
        oar.fused_activation(oar.ones([2]), "swish")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("activation", ["none", "relu", "gelu_tanh"])
@pytest.mark.parametrize("transpose_y", [False, True])
def test_fused_matmul_bias_matches_matmul_add_activation(dtype, activation, transpose_y):
    x = oar.to_tensor(rand((4, 6), dtype, seed=2))
    w = oar.to_tensor(rand((5, 6) if transpose_y else (6, 5), dtype, seed=3))
    b = oar.to_tensor(rand((5,), dtype, seed=4))
    ref = ACTIVATIONS[activation](oar.add(oar.matmul(x, w, False, transpose_y), b))
    out = oar.fused_matmul_bias(x, w, b, False, transpose_y, activation)
    assert_close(out, ref.numpy(), dtype, "fused_matmul_bias")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("with_bias", [True, False])
def test_fused_conv2d_bias_act_matches_conv2d_activation(dtype, with_bias):
    x = oar.to_tensor(rand((2, 3, 7, 7), dtype, seed=5))
    w = oar.to_tensor(rand((4, 3, 3, 3), dtype, seed=6))
    b = oar.to_tensor(rand((4,), dtype, seed=7)) if with_bias else None
    ref = F.relu(F.conv2d(x, w, b, stride=2, padding=1))
    out = oar.fused_conv2d_bias_act(x, w, b, [2], [1], [1], 1, "NCHW", "EXPLICIT", "relu")
    assert_close(out, ref.numpy(), dtype, "fused_conv2d_bias_act")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_elementwise_runs_the_chain_of_ops(dtype):
    # 1100 elements: more than one block of the kernel, not a multiple of it.
    x = oar.to_tensor(rand((11, 100), dtype, seed=8))
    y = oar.to_tensor(rand((11, 100), dtype, low=0.5, high=2.0, seed=9))
    # registers: 0 x, 1 y; 2 = relu(x); 3 = exp(2); 4 = 3 * y; 5 = tanh(4); 6 = 5 / y; 7 = max(6, x)
    program = [0, 0, -1, 1, 2, -1, 102, 3, 1, 2, 4, -1, 103, 5, 1, 104, 6, 0]
    ref = oar.maximum(oar.divide(oar.tanh(oar.multiply(oar.exp(F.relu(x)), y)), y), x)
    assert_close(oar.fused_elementwise([x, y], program), ref.numpy(), dtype, "fused_elementwise")
    # Every unary opcode against its op.
    unary = {0: F.relu, 1: oar.exp, 2: oar.tanh, 3: F.sigmoid, 4: oar.neg, 5: oar.sqrt, 6: oar.abs,
             7: oar.log, 8: oar.square, 9: F.silu, 10: F.gelu, 11: oar.rsqrt}
    for code, fn in unary.items():
        assert_close(oar.fused_elementwise([y], [code, 0, -1]), fn(y).numpy(), dtype, f"opcode {code}")
    binary = {100: oar.add, 101: oar.subtract, 102: oar.multiply, 103: oar.divide, 104: oar.maximum,
              105: oar.minimum}
    for code, fn in binary.items():
        assert_close(oar.fused_elementwise([x, y], [code, 0, 1]), fn(x, y).numpy(), dtype, f"opcode {code}")


def test_fused_elementwise_checks_its_program_and_inputs():
    x = oar.ones([2, 3])
    with pytest.raises(ValueError, match="must hold \\(opcode, a, b\\) triples, got 2 ints"):
        oar.fused_elementwise([x], [0, 0])
    with pytest.raises(ValueError, match="step 0 reads register 1, expected \\[0, 1\\)"):
        oar.fused_elementwise([x], [0, 1, -1])
    with pytest.raises(ValueError, match="step 0 has unknown opcode 50"):
        oar.fused_elementwise([x], [50, 0, -1])
    with pytest.raises(ValueError, match="inputs\\[1\\] has shape \\[3\\], expected \\[2, 3\\]"):
        oar.fused_elementwise([x, oar.ones([3])], [100, 0, 1])
    with pytest.raises(TypeError, match="must be float32 or float64, got int64"):
        oar.fused_elementwise([oar.ones([2], dtype="int64")], [0, 0, -1])
    np.testing.assert_array_equal(oar.fused_elementwise([oar.zeros([0, 3])], [0, 0, -1]).numpy().shape, (0, 3))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_attention_matches_the_transposed_heads_chain(dtype):
    # q, k, v as [B, S, H, D]; Sk differs from Sq, so a transposed key would show.
    q = oar.to_tensor(rand((2, 5, 3, 4), dtype, seed=10))
    k = oar.to_tensor(rand((2, 7, 3, 4), dtype, seed=11))
    v = oar.to_tensor(rand((2, 7, 3, 6), dtype, seed=12))
    heads = [0, 2, 1, 3]
    scores = oar.matmul(q.transpose(heads) * 0.5, k.transpose(heads), transpose_y=True)
    ref = oar.matmul(F.softmax(scores, axis=-1), v.transpose(heads)).transpose(heads)
    out = oar.fused_attention(q, k, v, 0.5)
    assert out.shape == [2, 5, 3, 6]
    assert_close(out, ref.numpy(), dtype, "fused_attention")


def test_fused_attention_rejects_mismatched_heads():
    q = oar.ones([1, 2, 3, 4])
    with pytest.raises(ValueError, match="must share B and H"):
        oar.fused_attention(q, oar.ones([1, 2, 2, 4]), oar.ones([1, 2, 2, 4]), 1.0)
