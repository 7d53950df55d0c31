"""Build examples/custom_op/custom_ops.cc (a Paddle custom-op source) with
oar.utils.cpp_extension.load and train a small MLP whose activation is the custom op.

    .venv/bin/python examples/custom_op/train_custom_relu.py
"""
import os

import numpy as np

import oar
from oar.utils import cpp_extension

HERE = os.path.dirname(os.path.abspath(__file__))


class Mlp(oar.nn.Layer):
    def __init__(self, ops):
        super().__init__()
        self.ops = ops
        self.fc1 = oar.nn.Linear(2, 32)
        self.fc2 = oar.nn.Linear(32, 1)

    def forward(self, x):
        return self.fc2(self.ops.custom_relu(self.fc1(x)))


def main():
    ops = cpp_extension.load("example_custom_ops", [os.path.join(HERE, "custom_ops.cc")], verbose=True)
    oar.seed(0)
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, [256, 2]).astype("float32")
    y = (x[:, :1] * x[:, 1:] > 0).astype("float32")  # XOR of the signs: needs the nonlinearity
    net = Mlp(ops)
    opt = oar.optimizer.Adam(learning_rate=0.02, parameters=net.parameters())
    xt, yt = oar.to_tensor(x), oar.to_tensor(y)
    for step in range(301):
        loss = oar.nn.functional.binary_cross_entropy_with_logits(net(xt), yt)
        loss.backward()
        opt.step()
        opt.clear_grad()
        if step % 100 == 0:
            acc = float(((net(xt).numpy() > 0) == (y > 0.5)).mean())
            print(f"step {step}: loss {float(loss):.4f}, accuracy {acc:.3f}")


if __name__ == "__main__":
    main()
