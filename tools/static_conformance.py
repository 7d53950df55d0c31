#!/usr/bin/env python3
"""Every op in both modes: runs each conformance case (tools/conformance_cases.py) of every oar
function eagerly and as a static program (its array arguments become static.data inputs, the
program runs on the executor), and compares outputs (shape, dtype, values; the same seed for
random ops). Writes docs/static_coverage.md; exit status 1 when a case gives different numbers,
or fails in static mode for a reason not written in STATIC_LIMITS below.

Usage: .venv/bin/python tools/static_conformance.py [--write docs/static_coverage.md]
"""
import argparse
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conformance_cases as cases  # noqa: E402
from conformance import CASE_NAMESPACES, flatten_outputs, presence, resolve  # noqa: E402

# Why a name cannot be recorded into a static program (the error it raises says so too).
STATIC_LIMITS = {
    "no shape rule": "it is, or is built from, an op without a compile-time shape rule: a result shape "
                     "that depends on the input values "
                     "with no program rule yet; it runs in dynamic mode",
    "reads values": "the Python layer reads input values while building (a Python number or a check "
                    "on the data); it runs in dynamic mode",
}


def _limit_of(err):
    msg = str(err)
    if "has no compile-time shape rule" in msg:
        return "no shape rule"
    if "has no data until the program runs" in msg or "static program" in msg:
        return "reads values"
    return None


def _outputs(out):
    return [o for o in flatten_outputs(out)]


def run_case(oar, fn, ns, case):
    """None when eager and static agree; else (kind, message)."""
    from oar import static
    args = list(case.args)
    kwargs = dict(case.kwargs)

    def to_t(v):
        if isinstance(v, np.ndarray):
            return oar.to_tensor(v)
        if isinstance(v, (list, tuple)) and any(isinstance(x, np.ndarray) for x in v):
            return type(v)(to_t(x) for x in v)
        return v

    oar.seed(11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            eager = _outputs(fn(*[to_t(a) for a in args], **{k: to_t(v) for k, v in kwargs.items()}))
        except Exception:
            return None  # the case is an error case: nothing to compare
    feeds = {}

    def to_sym(v):
        if isinstance(v, np.ndarray):
            name = f"in{len(feeds)}"
            feeds[name] = v
            return static.data(name, list(v.shape), str(v.dtype))
        if isinstance(v, (list, tuple)) and any(isinstance(x, np.ndarray) for x in v):
            return type(v)(to_sym(x) for x in v)
        return v

    main = static.Program()
    oar.enable_static()
    try:
        with static.program_guard(main):
            try:
                out = _outputs(fn(*[to_sym(a) for a in args], **{k: to_t(v) for k, v in kwargs.items()}))
            except Exception as e:  # noqa: BLE001
                return ("limit", _limit_of(e), f"{type(e).__name__}: {str(e).splitlines()[0][:160]}")
        fetch = [o for o in out if static.is_symbolic(o)]
        oar.seed(11)
        try:
            got = static.Executor().run(main, feed=feeds, fetch_list=fetch, return_numpy=False)
        except Exception as e:  # noqa: BLE001
            return ("run", None, f"{type(e).__name__}: {str(e).splitlines()[0][:160]}")
    finally:
        oar.disable_static()
    got = iter(got)
    tol = case.tolerance()
    for k, (e, o) in enumerate(zip(eager, out)):
        if not static.is_symbolic(o):
            continue
        g = next(got)
        if not hasattr(e, "numpy"):
            continue
        if list(g.shape) != list(e.shape) or g.dtype != e.dtype:
            return ("diff", None, f"output {k}: {g.dtype}{list(g.shape)} static vs {e.dtype}{list(e.shape)} eager")
        a, b = g.numpy(), e.numpy()
        ok = np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True) if a.dtype.kind in "fc" else np.array_equal(a, b)
        if not ok:
            return ("diff", None, f"output {k}: values differ")
    return None


def run_all():
    import oar
    report = {}
    # The namespaces with generated cases (the others are counted for presence only).
    for ns, found in presence([pd for pd, _ in CASE_NAMESPACES]).items():
        oar_ns = resolve(ns.replace("paddle", "oar", 1))
        for name in found.present:
            generated = cases.cases_for(ns, name)
            if not generated or name.endswith("_"):
                continue  # in-place variants: a program cannot overwrite its inputs
            fn = getattr(oar_ns, name)
            if ns.endswith(".Tensor"):
                fn = getattr(oar.Tensor, name)
            entry = report.setdefault(f"{ns}.{name}", {"cases": 0, "fails": []})
            for case in generated:
                entry["cases"] += 1
                r = run_case(oar, fn, ns, case)
                if r is not None:
                    entry["fails"].append((r, str(case)))
    return report


def write(path, report):
    ok = [k for k, v in report.items() if not v["fails"]]
    limited = {k: v for k, v in report.items() if v["fails"] and all(f[0][0] == "limit" and f[0][1] for f in v["fails"])}
    bad = {k: v for k, v in report.items() if v["fails"] and k not in limited}
    lines = ["# Ops in static mode", "",
             "Generated by `tools/static_conformance.py`: every conformance case of every oar function, run "
             "eagerly and as a static program on the executor, outputs compared.", "",
             f"- names run: {len(report)}; cases: {sum(v['cases'] for v in report.values())}",
             f"- identical in both modes on every case: {len(ok)}",
             f"- cannot be recorded (a stated limit): {len(limited)}",
             f"- unexplained: {len(bad)}", "", "## Limits", ""]
    for k, v in sorted(limited.items()):
        lines.append(f"- `{k}`: {STATIC_LIMITS[v['fails'][0][0][1]]} ({v['fails'][0][0][2]})")
    lines += ["", "## Unexplained", ""]
    for k, v in sorted(bad.items()):
        (kind, _, msg), case = v["fails"][0]
        lines.append(f"- `{k}` {case}: {kind}: {msg}" + (f" (+{len(v['fails']) - 1} more)" if len(v["fails"]) > 1 else ""))
    if not bad:
        lines.append("None.")
    text = "\n".join(lines) + "\n"
    if path:
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
    return ok, limited, bad, text


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--write", default=None)
    args = p.parse_args(argv)
    report = run_all()
    ok, limited, bad, text = write(args.write, report)
    print(text if bad else text.split("## Limits")[0])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
