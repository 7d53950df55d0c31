"""The state of oar's one random-number generator (the C++ Philox generator), as Paddle exposes it
at top level: seed, manual_seed, get_rng_state, set_rng_state, and the CUDA state functions (oar
draws on the host for every place, so the CUDA state is an empty list)."""
from .. import _C
from .generator import GeneratorState

__all__ = ["seed", "manual_seed", "get_rng_state", "set_rng_state", "get_cuda_rng_state",
           "set_cuda_rng_state"]

seed = _C.seed  # python/src/module.cc


def manual_seed(seed):
    _C.seed(seed)


def get_rng_state():
    return [GeneratorState(*_C._get_rng_state())]


def set_rng_state(state):
    s, off = state[0]
    _C._set_rng_state(s, off)


def get_cuda_rng_state():
    return []


def set_cuda_rng_state(state_list):
    if list(state_list):
        raise RuntimeError("set_cuda_rng_state: oar was built without CUDA; only an empty state list is accepted")
