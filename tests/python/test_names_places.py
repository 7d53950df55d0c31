"""CUDAPlace, CUDAPinnedPlace, XPUPinnedPlace: built and printed as Paddle's GPU build prints them;
placing data on them raises in this CPU-only build, as Paddle's CPU build does."""
import numpy as np
import pytest

import oar


def test_construction_and_printing():
    assert repr(oar.CUDAPlace(0)) == "Place(gpu:0)" and str(oar.CUDAPlace(3)) == "Place(gpu:3)"
    assert repr(oar.CUDAPinnedPlace()) == "Place(gpu_pinned)"
    assert repr(oar.XPUPinnedPlace()) == "Place(xpu_pinned)"
    assert oar.CUDAPlace(1).get_device_id() == 1
    assert isinstance(oar.CUDAPlace(0), oar.Place)


def test_predicates_and_equality():
    g, pin, xpin, cpu = oar.CUDAPlace(0), oar.CUDAPinnedPlace(), oar.XPUPinnedPlace(), oar.CPUPlace()
    assert g.is_gpu_place() and not g.is_cpu_place() and not g.is_cuda_pinned_place()
    assert pin.is_cuda_pinned_place() and not pin.is_gpu_place()
    assert xpin.is_xpu_pinned_place() and not xpin.is_cpu_place()
    assert not cpu.is_cuda_pinned_place() and not cpu.is_xpu_place()
    assert g == oar.CUDAPlace(0) and g != oar.CUDAPlace(1) and g != cpu
    assert pin == oar.CUDAPinnedPlace() and pin != xpin
    assert len({g, oar.CUDAPlace(0), pin}) == 2


@pytest.mark.parametrize("arg,err", [(-1, ValueError), ("a", TypeError), (1.0, TypeError), (True, TypeError)])
def test_cuda_place_bad_id(arg, err):
    with pytest.raises(err, match="CUDAPlace"):
        oar.CUDAPlace(arg)


@pytest.mark.host_only
def test_placing_data_raises():
    with pytest.raises(ValueError, match="to_tensor: cannot place data on Place\\(gpu:0\\)"):
        oar.to_tensor([1.0], place=oar.CUDAPlace(0))
    with pytest.raises(RuntimeError, match="Place\\(gpu_pinned\\)"):
        oar.to_tensor([1.0], place=oar.CUDAPinnedPlace())
    with pytest.raises(RuntimeError, match="Place\\(xpu_pinned\\)"):
        oar.to_tensor([1.0], place=oar.XPUPinnedPlace())
    x = oar.to_tensor([1.0, 2.0])
    with pytest.raises(ValueError, match="Tensor.to"):
        x.to(oar.CUDAPlace(0))
    with pytest.raises(RuntimeError, match="Tensor.to"):
        x.to(device=oar.CUDAPinnedPlace())
    # the CPU place still works everywhere
    np.testing.assert_array_equal(oar.to_tensor([1.0], place=oar.CPUPlace()).numpy(), [1.0])
    assert x.to(oar.CPUPlace()) is x
    assert x.to(oar.CPUPlace(), "float64").dtype == oar.float64
