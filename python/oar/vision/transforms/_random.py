"""Randomness for the random transforms: drawn from oar's generator, so `oar.seed(n)` reproduces it.

Each draw asks oar's Philox generator for a 63-bit seed and builds a NumPy Generator from it; that
advances oar's state once per draw, so a sequence of transforms is reproducible after oar.seed().
"""
import numpy as np


def generator():
    import oar
    seed = int(oar.randint(0, 2**62, [1]).numpy()[0])
    return np.random.Generator(np.random.Philox(seed))


def uniform(low, high):
    return float(generator().uniform(low, high))


def random():
    return float(generator().random())


def randint(low, high):
    """An int in [low, high], both ends included (as Python's random.randint)."""
    return int(generator().integers(low, high + 1))
