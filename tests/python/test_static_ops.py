"""Every op in both modes: each conformance case of each oar function runs eagerly and as a
static program on the executor with the same results (tools/static_conformance.py). Names that
cannot be recorded must fail with one of the stated reasons, never with wrong numbers."""
import os
import sys

import pytest

# Host programs: these run on the CPU place (test_device_custom_cpu.py runs programs on a device).
pytestmark = pytest.mark.host_only

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))

import static_conformance  # noqa: E402


def test_every_op_gives_the_same_results_in_static_mode():
    report = static_conformance.run_all()
    ok, limited, bad, text = static_conformance.write(None, report)
    assert sum(v["cases"] for v in report.values()) > 3000
    assert not bad, text.split("## Unexplained")[1]
    # The limits are few and each names its reason.
    assert len(limited) <= 29, sorted(limited)
    assert len(ok) >= 592

