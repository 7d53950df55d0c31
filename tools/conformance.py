#!/usr/bin/env python3
"""Conformance with Paddle: imports the real `paddle` (pip install paddlepaddle, CPU) beside oar and

1. lists the public names of every public Paddle namespace (PUBLIC_MODULES below, and the
   `paddle.Tensor` methods) and whether oar has each one;
2. for the present names of the namespaces with case families (CASE_NAMESPACES: `paddle`,
   `paddle.nn.functional`, `paddle.linalg`, `paddle.Tensor`, `paddle.fft`, `paddle.signal`), runs
   generated cases (random shapes with broadcasting, each dtype the case family covers, default and
   non-default arguments) and compares outputs (shape, dtype, values) and, for float and complex
   inputs of differentiable ops, gradients; the other namespaces are counted for presence only;
3. writes the coverage table (docs/api_coverage.md): per namespace the Paddle names, how many oar
   has, every missing name, and every difference, the known ones with their reason
   (tools/conformance_cases.py: KNOWN_DIFFERENCES).

Which Paddle modules are public (the rule; `--discover` applies it to the installed Paddle and
compares the result with PUBLIC_MODULES, which was made by it from Paddle 3.3.1):

  a. the module is reachable from `paddle` through public attributes: each step is a name without
     a leading underscore whose value is that package's own submodule (`paddle.nn.functional`,
     not an alias such as `paddle.nn.functional.F`), so modules imported nowhere, and `paddle.base`
     / `fluid`-era modules hidden behind underscores, are not counted;
  b. it defines a non-empty `__all__` (Paddle's marker of a documented namespace; packages such as
     `paddle.tensor`, `paddle.hapi` or `paddle.nn.layer` declare `__all__ = []` and are re-exported
     through their parents);
  c. its `__all__` is not wholly contained in its parent's `__all__` (such a module is an
     implementation file whose names its parent already lists, e.g. `paddle.distribution.kl`,
     `paddle.sparse.creation`, `paddle.special`);
  d. it is not in EXCLUDED below (implementation areas that pass a-c: PIR/fleet/parameter-server
     internals, XPU-only and CINN-compiler modules, implementation files of their parent package).

A namespace's names are its `__all__` entries that Paddle really defines (`hasattr`); for
`paddle.Tensor` they are the class's attributes without a leading underscore. A name is present
when oar's module of the same dotted path (imported, or reached as attributes from `oar`, e.g.
`oar.callbacks`) has the attribute; when oar has no such module, every name of the namespace
counts as missing.

Usage: .venv/bin/python tools/conformance.py [--write docs/api_coverage.md] [--quiet] [--discover]
Exit status 1 when a present name differs from Paddle without a written reason (with --discover:
when the rule's modules differ from PUBLIC_MODULES).
"""
import argparse
import importlib
import os
import sys
import traceback
import types
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conformance_cases as cases  # noqa: E402

# The namespaces with generated cases (conformance_cases.cases_for), each with oar's module.
CASE_NAMESPACES = [("paddle", "oar"), ("paddle.nn.functional", "oar.nn.functional"),
                   ("paddle.linalg", "oar.linalg"), ("paddle.Tensor", "oar.Tensor"), ("paddle.fft", "oar.fft"),
                   ("paddle.signal", "oar.signal")]

# Every public Paddle namespace by the rule in the docstring (Paddle 3.3.1), sorted; oar's module
# has the same path with `oar` for `paddle`.
PUBLIC_MODULES = [
    "paddle", "paddle.Tensor",
    "paddle.amp", "paddle.amp.debugging",
    "paddle.audio", "paddle.audio.backends", "paddle.audio.datasets", "paddle.audio.features",
    "paddle.audio.functional",
    "paddle.autograd", "paddle.callbacks",
    "paddle.compat", "paddle.compat.nn", "paddle.compat.nn.functional",
    "paddle.cuda",
    "paddle.device", "paddle.device.cuda", "paddle.device.xpu",
    "paddle.distributed", "paddle.distributed.communication.stream", "paddle.distributed.fleet",
    "paddle.distributed.fleet.utils", "paddle.distributed.passes", "paddle.distributed.rpc",
    "paddle.distributed.sharding",
    "paddle.distribution",
    "paddle.fft", "paddle.geometric", "paddle.hub",
    "paddle.incubate", "paddle.incubate.asp", "paddle.incubate.autograd", "paddle.incubate.autotune",
    "paddle.incubate.distributed.fleet", "paddle.incubate.distributed.utils.io.dist_save",
    "paddle.incubate.distributed.utils.io.save_for_auto", "paddle.incubate.nn", "paddle.incubate.nn.functional",
    "paddle.incubate.optimizer", "paddle.incubate.optimizer.functional",
    "paddle.inference", "paddle.io", "paddle.jit", "paddle.linalg", "paddle.metric",
    "paddle.nn", "paddle.nn.attention", "paddle.nn.functional", "paddle.nn.initializer",
    "paddle.nn.quant", "paddle.nn.utils",
    "paddle.onnx", "paddle.optimizer", "paddle.optimizer.lr", "paddle.profiler",
    "paddle.quantization", "paddle.random", "paddle.regularizer", "paddle.signal",
    "paddle.sparse", "paddle.sparse.nn", "paddle.sparse.nn.functional",
    "paddle.static", "paddle.static.nn", "paddle.sysconfig",
    "paddle.text", "paddle.utils", "paddle.utils.cpp_extension", "paddle.utils.dlpack",
    "paddle.utils.download", "paddle.utils.unique_name", "paddle.version",
    "paddle.vision", "paddle.vision.datasets", "paddle.vision.models", "paddle.vision.ops",
    "paddle.vision.transforms",
]

# Rule d: modules (and everything under them) that pass a-c but are implementation areas.
EXCLUDED = {
    "paddle.autograd.ir_backward": "the PIR backward pass behind paddle.autograd / paddle.grad",
    "paddle.distributed.fleet.base": "fleet's runtime internals (topology bookkeeping)",
    "paddle.distributed.ps": "the parameter-server runtime",
    "paddle.functional": "implementation file of paddle.einsum, paddle.meshgrid, ... (its norm is "
                         "paddle.linalg.norm)",
    "paddle.incubate.cc": "the experimental CINN compiler front end (needs a CINN build)",
    "paddle.incubate.xpu": "XPU-only fused kernels",
    "paddle.nn.initializer.lazy_init": "implementation file of paddle.LazyGuard",
    "paddle.nn.quant.quant_layers": "implementation file of the quantization passes (paddle.nn.quant "
                                    "lists the public layers)",
}


def discover():
    """The public Paddle modules by the rule in the docstring (a sorted list of dotted paths)."""
    import paddle
    found, queue, seen = [], ["paddle"], {"paddle"}
    while queue:
        path = queue.pop(0)
        if any(path == e or path.startswith(e + ".") for e in EXCLUDED):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mod = importlib.import_module(path)
        except Exception:
            continue
        names = getattr(mod, "__all__", None)
        if names:
            parent = path.rpartition(".")[0]
            parent_all = set(getattr(sys.modules.get(parent), "__all__", None) or []) if parent else set()
            if not (parent and set(names) <= parent_all):
                found.append(path)
        for k in sorted(dir(mod)):
            v = getattr(mod, k, None) if not k.startswith("_") else None
            if isinstance(v, types.ModuleType) and v.__name__ == f"{path}.{k}" and v.__name__ not in seen:
                seen.add(v.__name__)
                queue.append(v.__name__)
    del paddle
    return sorted(found + ["paddle.Tensor"])


def oar_path(pd_path):
    return "oar" + pd_path[len("paddle"):]


def resolve(path):
    """The module or class named by a dotted path (None when there is no such module, or it cannot
    be imported)."""
    mod, _, attr = path.rpartition(".")
    if path.endswith(".Tensor"):
        return getattr(importlib.import_module(mod), attr)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return importlib.import_module(path)
    except Exception:
        if path.startswith("paddle"):
            raise
    # oar may expose the namespace as an attribute only (oar.callbacks is oar.hapi.callbacks):
    # `paddle.callbacks.X` then works under `import oar as paddle`, so it counts.
    parent = resolve(mod) if mod else None
    sub = getattr(parent, attr, None) if parent is not None else None
    return sub if isinstance(sub, types.ModuleType) else None


def public_names(obj, is_class):
    if is_class:
        return sorted(n for n in dir(obj) if not n.startswith("_"))
    names = getattr(obj, "__all__", None) or [n for n in dir(obj) if not n.startswith("_")]
    return sorted(n for n in set(names) if hasattr(obj, n))


class Presence:
    """The present and missing names of one Paddle namespace; has_module: oar has the module."""
    def __init__(self, present, missing, has_module):
        self.present, self.missing, self.has_module = present, missing, has_module

    def __iter__(self):  # (present, missing), as before
        return iter((self.present, self.missing))

    def __getitem__(self, i):
        return (self.present, self.missing)[i]


def presence(modules=None):
    """{namespace: Presence} for each Paddle namespace (default: PUBLIC_MODULES)."""
    out = {}
    for pd_path in modules or PUBLIC_MODULES:
        is_class = pd_path.endswith(".Tensor")
        pd_obj, oar_obj = resolve(pd_path), resolve(oar_path(pd_path))
        names = public_names(pd_obj, is_class)
        present = [n for n in names if oar_obj is not None and hasattr(oar_obj, n)]
        missing = [n for n in names if n not in present]
        out[pd_path] = Presence(present, missing, oar_obj is not None)
    return out


# ---- running one case in both frameworks ----

def to_framework(fw, value, requires_grad, half=None):
    """NumPy arrays become tensors of fw (float arrays cast to half when given); lists/tuples are
    converted element-wise."""
    if isinstance(value, np.ndarray):
        if half and value.dtype.kind == "f":
            t = fw.to_tensor(value.astype(np.float32)).astype(half)
        else:
            t = fw.to_tensor(value)
        t.stop_gradient = not requires_grad
        return t
    if isinstance(value, (list, tuple)) and any(isinstance(v, np.ndarray) for v in value):
        return type(value)(to_framework(fw, v, requires_grad, half) for v in value)
    return value


def to_numpy(t):
    """A tensor's values as NumPy; half tensors widened to float32 (NumPy has no bfloat16)."""
    if str(t.dtype).replace("paddle.", "") in cases.HALF_DTYPES:
        t = t.astype("float32")
    return np.asarray(t.numpy())


def flatten_outputs(out):
    if isinstance(out, (list, tuple)):
        res = []
        for o in out:
            res.extend(flatten_outputs(o))
        return res
    return [out]


def call(fw, ns, name, case, with_grad):
    """(outputs as numpy, grads as numpy or None) of one case in framework fw (paddle or oar)."""
    fn = getattr(resolve(ns.replace("paddle", fw.__name__, 1)), name)
    args = [to_framework(fw, a, with_grad and case.differentiable(i), case.half)
            for i, a in enumerate(case.args)]
    kwargs = {k: to_framework(fw, v, False, case.half) for k, v in case.kwargs.items()}
    if ns.endswith(".Tensor"):
        out = fn(args[0], *args[1:], **kwargs)
    else:
        out = fn(*args, **kwargs)
    outs = [o for o in flatten_outputs(out)]
    values = [(to_numpy(o), str(o.dtype).replace("paddle.", "")) if hasattr(o, "numpy")
              else (np.asarray(o), "python") for o in outs]
    grads = None
    if with_grad:
        leaves = [a for i, a in enumerate(args) if case.differentiable(i)]
        fouts = [o for o in outs if hasattr(o, "dtype") and ("float" in str(o.dtype) or "complex" in str(o.dtype))]
        if leaves and fouts:
            rng = np.random.default_rng(7)
            loss = None
            for o in fouts:
                w = fw.to_tensor(rng.uniform(0.5, 1.5, size=o.shape).astype(np.float64)).astype(o.dtype)
                term = (o * w).sum()
                if "complex" in str(o.dtype):
                    term = fw.real(term)  # a real loss: the gradient of a complex input is dL/dRe + i dL/dIm
                loss = term if loss is None else loss + term
            gs = fw.grad([loss], leaves, allow_unused=True)
            grads = [None if g is None else to_numpy(g) for g in gs]
    return values, grads


def compare(name, case, pd_res, oar_res):
    """A list of difference strings (empty when they agree)."""
    diffs = []
    (pv, pg), (ov, og) = pd_res, oar_res
    if len(pv) != len(ov):
        return [f"{len(ov)} outputs, Paddle gives {len(pv)}"]
    tol = case.tolerance()
    for k, ((p, pdt), (o, odt)) in enumerate(zip(pv, ov)):
        if list(p.shape) != list(o.shape):
            diffs.append(f"output {k}: shape {list(o.shape)}, Paddle {list(p.shape)}")
            continue
        if pdt != "python" and odt != "python" and pdt != odt:
            diffs.append(f"output {k}: dtype {odt}, Paddle {pdt}")
        if p.dtype.kind in "fc" or o.dtype.kind in "fc":
            ok = np.allclose(o.astype(np.complex128 if "c" in (p.dtype.kind + o.dtype.kind) else np.float64),
                             p, rtol=tol, atol=tol, equal_nan=True)
        else:
            ok = np.array_equal(o, p)
        if not ok:
            diffs.append(f"output {k}: values differ (max abs diff "
                         f"{np.max(np.abs(o.astype(np.float64) - p.astype(np.float64))) if o.size else 0:.3g})")
    if pg is not None and og is not None:
        for k, (p, o) in enumerate(zip(pg, og)):
            if (p is None) != (o is None):
                diffs.append(f"grad {k}: {'none' if o is None else 'present'} in oar, "
                             f"{'none' if p is None else 'present'} in Paddle")
            elif p is not None and p.shape != o.shape:
                diffs.append(f"grad {k}: shape {list(o.shape)}, Paddle {list(p.shape)}")
            elif p is not None and not np.allclose(o, p, rtol=tol, atol=tol, equal_nan=True):
                diffs.append(f"grad {k}: differs (max abs diff {np.max(np.abs(o - p)):.3g})")
    return diffs


def run_cases(present, quiet, half=True):
    """{(ns, name): {"cases": n, "diffs": [...], "half": [...]}} for every present name with
    generated cases. With half, each name also runs half-precision variants of its float cases
    (conformance_cases.half_cases): where Paddle's CPU build has the half kernel oar must match it;
    where Paddle raises, oar may still support the dtype. "half" lists (dtype, Paddle, oar) outcomes."""
    import paddle
    import oar
    report = {}
    for ns in present:
        if ns not in dict(CASE_NAMESPACES):
            continue
        for name in present[ns][0]:
            generated = cases.cases_for(ns, name)
            if not generated:
                continue
            if half:
                generated = generated + cases.half_cases(generated)
            entry = report.setdefault((ns, name), {"cases": 0, "diffs": [], "half": []})
            for case in generated:
                entry["cases"] += 1
                diffs = run_case(paddle, oar, ns, name, case, entry)
                entry["diffs"] += [f"{case}: {d}" for d in diffs]
            if not quiet and entry["diffs"]:
                print(f"DIFF {ns}.{name}: {entry['diffs'][0]}")
    return report


def run_case(paddle, oar, ns, name, case, entry):
    """The differences of one case (a list of strings); half cases also note their outcome in
    entry["half"]."""
    def note(pd_state, oar_state):
        if case.half:
            entry["half"].append((case.half, str(case), pd_state, oar_state))

    with_grad = case.grad
    diffs = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pd_res = call(paddle, ns, name, case, with_grad)
    except Exception as e:
        try:  # Paddle's forward works but its backward raises: compare the forward
            pd_res = call(paddle, ns, name, case, False) if with_grad else None
        except Exception as e2:
            pd_res, e = None, e2
        if pd_res is None:
            if case.half:  # no half kernel in Paddle's CPU build: nothing to match
                note(f"raises {type(e).__name__}", "-")
                return []
            try:  # Paddle rejects this case: oar must reject it too
                call(oar, ns, name, case, False)
                return ["Paddle raises, oar does not"]
            except Exception:
                return []
        with_grad = False
        if not case.half:
            diffs.append(f"Paddle's backward raises {type(e).__name__}: {str(e).splitlines()[0][:100]}")
    try:
        oar_res = call(oar, ns, name, case, with_grad)
    except Exception as e:
        msg = f"oar raises {type(e).__name__}: {str(e).splitlines()[0][:120]}"
        note("ok", msg)
        return diffs + [msg]
    found = compare(name, case, pd_res, oar_res)
    note("ok" + ("" if with_grad or not case.grad else " (forward only)"), "; ".join(found) or "ok")
    return diffs + found


def write_table(path, present, report):
    import paddle
    case_ns = dict(CASE_NAMESPACES)
    lines = ["# API coverage against Paddle", "",
             f"Generated by `tools/conformance.py` against paddle {paddle.__version__}. It counts the "
             "public names (`__all__`) of every public Paddle namespace (the rule is in the tool's "
             "docstring) and the `paddle.Tensor` methods; a name counts as present when oar's module "
             "of the same path has it, and a namespace whose module oar lacks counts all its names "
             "as missing. Present names of the namespaces with case families are run in both "
             "frameworks (outputs, dtypes, shapes and float64/float32 gradients compared); the "
             "other namespaces are counted for presence only.", "",
             "| namespace | Paddle names | present in oar | coverage | with generated cases | matching Paddle |",
             "|---|---|---|---|---|---|"]
    total = total_present = 0
    for ns, p in present.items():
        n = len(p.present) + len(p.missing)
        total += n
        total_present += len(p.present)
        if ns in case_ns:
            run = [k for k in report if k[0] == ns]
            good = [k for k in run if not unexplained(k, report[k])]
            cases_col = f"{len(run)} | {len(good)}"
        else:
            cases_col = "presence only | -"
        pct = f"{100 * len(p.present) / max(n, 1):.0f}%" if n else "-"
        absent = "" if p.has_module else " (no oar module)"
        lines.append(f"| `{ns}`{absent} | {n} | {len(p.present)} | {pct} | {cases_col} |")
    lines.append(f"| all | {total} | {total_present} | {100 * total_present / max(total, 1):.0f}% | "
                 f"{len(report)} | {sum(1 for k in report if not unexplained(k, report[k]))} |")
    below = [(ns, p) for ns, p in present.items()
             if len(p.present) < 0.9 * (len(p.present) + len(p.missing))]
    lines += ["", f"{len(present)} namespaces; {len(below)} below 90%: "
              + (", ".join(f"`{ns}` ({len(p.present)}/{len(p.present) + len(p.missing)})" for ns, p in below)
                 or "none") + "."]
    lines += ["", "## Differences", ""]
    any_diff = False
    for (ns, name), entry in sorted(report.items()):
        if not entry["diffs"]:
            continue
        any_diff = True
        reason = cases.KNOWN_DIFFERENCES.get(f"{ns}.{name}")
        lines.append(f"- `{ns}.{name}`: {entry['diffs'][0]}" + (f" — known: {reason}" if reason else " — UNEXPLAINED")
                     + (f" (+{len(entry['diffs']) - 1} more)" if len(entry["diffs"]) > 1 else ""))
    if not any_diff:
        lines.append("None: every generated case matches Paddle.")
    lines += ["", "## Missing names", ""]
    for ns, p in present.items():
        miss = p.missing
        lines.append(f"### `{ns}` ({len(miss)} missing{'' if p.has_module else ', no oar module'})")
        lines.append("")
        lines.append(", ".join(f"`{m}`" for m in miss) if miss else "none")
        lines.append("")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def print_half_report(report):
    """The half-precision sweep: each (name, dtype) that Paddle's CPU build runs and oar fails or
    differs on, then a count of those Paddle has no kernel for."""
    print("| name | dtype | Paddle | oar |")
    print("|---|---|---|---|")
    no_kernel = {}
    for (ns, name), entry in sorted(report.items()):
        seen = set()
        for dt, case, pd_state, oar_state in entry["half"]:
            if pd_state.startswith("raises"):
                no_kernel.setdefault(dt, set()).add(f"{ns}.{name}")
            elif oar_state != "ok" and (dt, oar_state[:40]) not in seen:
                seen.add((dt, oar_state[:40]))
                print(f"| {ns}.{name} | {dt} {case} | {pd_state} | {oar_state} |")
    for dt, names in sorted(no_kernel.items()):
        print(f"no {dt} kernel in Paddle's CPU build for some case of {len(names)} names: "
              + ", ".join(sorted(names)))


def unexplained(key, entry):
    return bool(entry["diffs"]) and f"{key[0]}.{key[1]}" not in cases.KNOWN_DIFFERENCES


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", metavar="PATH", help="write the coverage table (markdown) here")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--no-half", action="store_true", help="skip the float16/bfloat16 variants")
    ap.add_argument("--discover", action="store_true",
                    help="apply the public-module rule to the installed Paddle and compare with PUBLIC_MODULES")
    ap.add_argument("--half-report", action="store_true",
                    help="print every half-precision case Paddle runs and oar does not match")
    args = ap.parse_args(argv)
    try:
        import paddle  # noqa: F401
    except ImportError:
        print("conformance: paddle is not importable (pip install paddlepaddle); skipped")
        return 0
    if args.discover:
        found = discover()
        extra, gone = sorted(set(found) - set(PUBLIC_MODULES)), sorted(set(PUBLIC_MODULES) - set(found))
        print(f"{len(found)} public modules by the rule; PUBLIC_MODULES has {len(PUBLIC_MODULES)}")
        for m in extra:
            print(f"  not in PUBLIC_MODULES: {m}")
        for m in gone:
            print(f"  in PUBLIC_MODULES, not found by the rule: {m}")
        return 1 if extra or gone else 0
    present = presence()
    report = run_cases(present, args.quiet, half=not args.no_half)
    if args.half_report:
        print_half_report(report)
    n_all = n_pres = 0
    for ns, (pres, miss) in present.items():
        n_all, n_pres = n_all + len(pres) + len(miss), n_pres + len(pres)
        if not args.quiet or ns in dict(CASE_NAMESPACES):
            print(f"{ns:40s} {len(pres):4d} / {len(pres) + len(miss):4d} present"
                  + ("" if present[ns].has_module else " (no oar module)"))
    print(f"{'all ' + str(len(present)) + ' namespaces':40s} {n_pres:4d} / {n_all:4d} present")
    bad = [k for k in report if unexplained(k, report[k])]
    n_cases = sum(e["cases"] for e in report.values())
    print(f"{len(report)} names run in {n_cases} cases; {len(bad)} with unexplained differences")
    if args.write:
        write_table(args.write, present, report)
    return 1 if bad else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:
        traceback.print_exc()
        sys.exit(2)
