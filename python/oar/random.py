"""paddle.random: the default generator's initial seed (the random ops themselves are in
oar.tensor.random, re-exported at the top level as in Paddle)."""
__all__ = ["initial_seed"]


def initial_seed():
    """The seed the default (CPU) generator was last seeded with, as a Python int
    (oar.seed(5) makes it 5)."""
    from .framework.generator import Generator
    return Generator().initial_seed()
