"""The op tests on a device: with OAR_TEST_DEVICE set (e.g. custom_cpu:0, gpu:0), every test runs
with that device as the expected place, so to_tensor puts its data there and the ops under test
run on the device's kernels; results are compared with the same NumPy references (and the CPU's
numbers, where a test compares with them). A test that reaches an op without a kernel on that
device is skipped, naming the op: the skips list what the backend still lacks."""
import os

import pytest

DEVICE = os.environ.get("OAR_TEST_DEVICE")


def _load_plugin(device):
    import oar
    if device.startswith("custom_cpu") and "custom_cpu" not in oar.device.get_all_custom_device_type():
        from test_device_custom_cpu import _plugin_path
        oar.device.load_custom_device(_plugin_path())


def pytest_configure(config):
    config.addinivalue_line("markers", "host_only: checks host behaviour (zero-copy NumPy views, "
                            "Place(cpu) in reprs, errors raised from inside kernels); skipped under "
                            "OAR_TEST_DEVICE")


@pytest.fixture(autouse=True)
def _on_test_device(request):
    if not DEVICE:
        yield
        return
    if request.node.get_closest_marker("host_only"):
        pytest.skip(f"host behaviour, not run on {DEVICE}")
    import oar
    _load_plugin(DEVICE)
    oar.device.set_device(DEVICE)
    try:
        yield
    finally:
        oar.device.set_device("cpu")


def _missing_kernel(exc):
    text = str(exc)
    if isinstance(exc, NotImplementedError) and "_update_on_device" in text:
        return text.split(".", 1)[0] + " (optimizer update)"  # an optimizer without a device path
    if isinstance(exc, NotImplementedError) and ("kernel for dtype" in text or "not supported on Place(" in text
                                                 or "does not handle this case" in text):
        head = text.split(")", 1)[-1].split(":", 1)[0].strip()
        return head.split(".")[0]
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not DEVICE or call.when != "call" or call.excinfo is None:
        return
    exc = call.excinfo.value
    if isinstance(exc, RuntimeError) and "host code cannot read its memory" in str(exc):
        # A host-only path (a fused optimizer binding, the predictor) met a device tensor: a clear
        # error, listed as a gap of the device path rather than a failure of the op under test.
        report.outcome = "skipped"
        report.longrepr = (str(item.fspath), item.location[1] or 0,
                           f"Skipped: host-only code path reached with a {DEVICE} tensor")
        return
    op = _missing_kernel(exc)
    if op is not None:
        report.outcome = "skipped"
        report.longrepr = (str(item.fspath), item.location[1] or 0, f"Skipped: {DEVICE} has no kernel for {op}")
