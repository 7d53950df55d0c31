"""Trains a two-layer MLP on synthetic regression data with oar's Python API."""
import oar

oar.seed(42)
x = oar.uniform([512, 4], min=-1.0, max=1.0)
y = (oar.sin(x[:, 0] * 3) + x[:, 1] * x[:, 2] - 0.5 * x[:, 3]).unsqueeze(1)


def parameter(shape, scale):
    p = oar.randn(shape) * scale
    p.stop_gradient = False
    return p


w1, b1 = parameter([4, 64], 0.5), parameter([64], 0.0)
w2, b2 = parameter([64, 1], 0.1), parameter([1], 0.0)
params = [w1, b1, w2, b2]
lr = 0.1
losses = []
for step in range(301):
    h = oar.tanh(x @ w1 + b1)
    pred = h @ w2 + b2
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    with oar.no_grad():
        for p in params:
            p.subtract_(p.grad * lr)
            p.clear_grad()
    losses.append(loss.item())
    if step % 50 == 0:
        print(f"step {step:3d}  loss {loss.item():.5f}")
print(f"loss {losses[0]:.5f} -> {losses[-1]:.5f} ({'falling' if losses[-1] < 0.2 * losses[0] else 'NOT falling'})")
assert losses[-1] < 0.2 * losses[0], "the loss did not fall"
