"""paddle.Generator: the default generator's handle, tied to oar.seed and oar.get_rng_state."""
import numpy as np
import pytest

import oar


def test_is_the_default_generator():
    g = oar.Generator()
    assert g is oar.Generator() is oar.Generator("cpu") is oar.Generator(0) is oar.Generator(oar.CPUPlace())
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    oar.seed(11)
    assert g.initial_seed() == 11


def test_manual_seed_is_oar_seed():
    g = oar.Generator()
    oar.seed(4)
    a = oar.rand([5]).numpy()
    g.manual_seed(4)
    np.testing.assert_array_equal(oar.rand([5]).numpy(), a)
    big = (1 << 64) - 3  # seeds use all 64 bits
    assert g.manual_seed(big).initial_seed() == big


def test_state_round_trip():
    g = oar.Generator()
    g.manual_seed(7)
    oar.rand([3])
    st = g.get_state()
    assert st.current_seed() == 7
    a = oar.randn([4]).numpy()
    g.set_state(st)
    np.testing.assert_array_equal(oar.randn([4]).numpy(), a)
    # oar.get_rng_state() hands out the same state objects, and set_rng_state takes them back
    st2 = oar.get_rng_state()
    b = oar.rand([2]).numpy()
    g.set_state(st2[0])
    np.testing.assert_array_equal(oar.rand([2]).numpy(), b)
    oar.set_rng_state(st2)
    np.testing.assert_array_equal(oar.rand([2]).numpy(), b)


def test_seed_and_random():
    g = oar.Generator()
    s = g.seed()
    assert isinstance(s, int) and 0 <= s < 2 ** 53 and g.initial_seed() == s
    g.manual_seed(3)
    r1, r2 = g.random(), g.random()
    assert 0 <= r1 < 2 ** 64 and r1 != r2
    g.manual_seed(3)
    assert g.random() == r1  # drawn from the generator: reproducible


@pytest.mark.parametrize("seed", [-1, 2 ** 64, 1.5, "1", True])
def test_manual_seed_rejects(seed):
    with pytest.raises(TypeError, match="manual_seed"):
        oar.Generator().manual_seed(seed)


def test_bad_devices_and_states():
    if oar.device.cuda.device_count() == 0:  # Paddle's CPU build refuses accelerators
        with pytest.raises(ValueError, match="should not be 'gpu'"):
            oar.Generator("gpu")
        with pytest.raises(ValueError, match="CPU only"):
            oar.Generator(oar.CUDAPlace(0))
    else:  # draws happen on the host for every place: one generator serves the GPU too
        assert oar.Generator("gpu") is oar.Generator(oar.CUDAPlace(0)) is oar.Generator()
    with pytest.raises(ValueError, match="device must be"):
        oar.Generator("foo")
    with pytest.raises(TypeError, match="set_state"):
        oar.Generator().set_state(5)
    with pytest.raises(TypeError, match="set_state"):
        oar.Generator().set_state(oar.get_rng_state())
