"""The state of oar's one random-number generator (the C++ Philox generator), as Paddle exposes it
at top level: seed, manual_seed, get_rng_state, set_rng_state, and the CUDA state functions (oar
draws on the host for every place, so the CUDA state is an empty list)."""
from .. import _C
from .generator import GeneratorState

__all__ = ["seed", "manual_seed", "get_rng_state", "set_rng_state", "get_cuda_rng_state",
           "set_cuda_rng_state"]

seed = _C.seed  # python/src/module.cc


def manual_seed(seed):
    """Seeds the global random generator, so later random ops repeat their values.

    Args:
        seed (int): The seed.

    Returns:
        None

    Examples:
        >>> import oar
        >>> oar.manual_seed(1)
        >>> a = oar.rand([2])
        >>> oar.manual_seed(1)
        >>> print(bool((a == oar.rand([2])).all()))
        True
    """
    _C.seed(seed)


def get_rng_state():
    """The state of the global random generator, to restore with set_rng_state.

    Returns:
        list[GeneratorState]: one state.

    Examples:
        >>> import oar
        >>> state = oar.get_rng_state()
        >>> a = oar.rand([2])
        >>> oar.set_rng_state(state)
        >>> print(bool((a == oar.rand([2])).all()))
        True
    """
    return [GeneratorState(*_C._get_rng_state())]


def set_rng_state(state):
    """Restores the global random generator to a state from get_rng_state.

    Args:
        state (list[GeneratorState]): The state.

    Returns:
        None

    Examples:
        >>> import oar
        >>> state = oar.get_rng_state()
        >>> a = oar.rand([2])
        >>> oar.set_rng_state(state)
        >>> print(bool((a == oar.rand([2])).all()))
        True
    """
    s, off = state[0]
    _C._set_rng_state(s, off)


def get_cuda_rng_state():
    """The states of the CUDA random generators; oar is built without CUDA, so none.

    Returns:
        list: empty.

    Examples:
        >>> import oar
        >>> print(oar.get_cuda_rng_state())
        []
    """
    return []


def set_cuda_rng_state(state_list):
    """Restores the CUDA random generators; without CUDA only an empty list is accepted
    (anything else raises RuntimeError).

    Args:
        state_list (list): States from get_cuda_rng_state.

    Returns:
        None

    Examples:
        >>> import oar
        >>> oar.set_cuda_rng_state(oar.get_cuda_rng_state())
    """
    if list(state_list):
        raise RuntimeError("set_cuda_rng_state: oar was built without CUDA; only an empty state list is accepted")
