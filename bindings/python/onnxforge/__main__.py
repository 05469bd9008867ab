"""``python3 -m onnxforge optimize|verify|inspect|passes ...``: the common verbs of the package.

Exit codes: 0 ok, 1 a check failed (verification mismatch), 2 usage or input error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Dict, List, Optional

from . import Error, load, passes, verify, version


def _shape_arg(text: str) -> Dict[str, List[int]]:
    name, sep, dims = text.rpartition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"'{text}' is not NAME=d1,d2,...")
    try:
        return {name: [int(d) for d in dims.split(",")] if dims else []}
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': dims must be integers") from None


def _int_at_least(text: str, value: str, least: int, what: str) -> int:
    """`value` as an integer >= least, else the argparse error naming `text` and `what`."""
    try:
        v = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': {what} must be an integer") from None
    if v < least:
        raise argparse.ArgumentTypeError(f"'{text}': {what} must be >= {least}")
    return v


def _dim_arg(text: str) -> Dict[str, int]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"'{text}' is not NAME=SIZE")
    return {name: _int_at_least(text, value, 0, "SIZE")}


def _input_arg(text: str) -> Dict[str, str]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"'{text}' is not NAME=FILE.pb")
    return {name: path}


def _positive(text: str) -> int:
    return _int_at_least(text, text, 1, "the value")


def _tolerance(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not v >= 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"'{text}' must be a finite number >= 0")
    return v


def _merge(items: Optional[list]) -> Optional[dict]:
    if not items:
        return None
    out: dict = {}
    for d in items:
        out.update(d)
    return out


def _names(text: Optional[str]) -> Optional[List[str]]:
    return None if text is None else [s for s in text.split(",") if s]


def _add_verify_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("verification inputs and tolerance")
    g.add_argument("--samples", type=_positive, help="seeded input sets (default 1)")
    g.add_argument("--seed", type=int, help="seed of the first set (default 0)")
    g.add_argument("--dim", type=_dim_arg, action="append", metavar="NAME=SIZE", help="size of a symbolic dim")
    g.add_argument("--test-data", metavar="DIR", help="a test_data_set_N folder, or a folder of them")
    g.add_argument("--input", type=_input_arg, action="append", metavar="NAME=FILE.pb", help="a real input")
    g.add_argument("--atol", type=_tolerance, help="absolute tolerance (default 1e-4)")
    g.add_argument("--rtol", type=_tolerance, help="relative tolerance (default 1e-3)")


def _verify_kwargs(a: argparse.Namespace) -> dict:
    return {"samples": a.samples, "seed": a.seed, "dims": _merge(a.dim), "test_data": a.test_data,
            "inputs": _merge(a.input), "atol": a.atol, "rtol": a.rtol}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m onnxforge",
                                description="Load, optimize, verify (by execution) and save ONNX models.",
                                epilog="Exit codes: 0 ok, 1 a check failed, 2 usage or input error.")
    p.add_argument("--version", action="version", version=f"onnxforge {version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    o = sub.add_parser("optimize", help="optimize IN into OUT", description="Optimize IN and save the result to OUT.")
    o.add_argument("src", metavar="IN")
    o.add_argument("dst", metavar="OUT")
    o.add_argument("--passes", help="comma-separated passes to run instead of the default pipeline")
    o.add_argument("--skip", help="comma-separated passes not to run")
    o.add_argument("--input-shape", type=_shape_arg, action="append", metavar="NAME=1,3,224,224",
                   help="fix a graph input's shape first")
    for flag, text in (("--verify", "run the original and the result and compare them"),
                       ("--verify-each-pass", "verify each inexact pass; roll back drifts"),
                       ("--external-data", "large tensors to OUT.data beside OUT"),
                       ("--json", "print the report as JSON")):
        o.add_argument(flag, action="store_true", help=text)
    _add_verify_options(o)

    v = sub.add_parser("verify", help="run A and B on the same inputs and compare their outputs",
                       description="Run A (reference) and B on the same inputs and compare every output of A.")
    v.add_argument("reference", metavar="A")
    v.add_argument("candidate", metavar="B")
    v.add_argument("--json", action="store_true", help="print the library's JSON report")
    _add_verify_options(v)

    i = sub.add_parser("inspect", help="inputs, outputs, opsets, op histogram of a model",
                       description="Print what a model holds.")
    i.add_argument("model", metavar="MODEL")
    i.add_argument("--json", action="store_true")

    ps = sub.add_parser("passes", help="list the passes", description="List the passes of the library.")
    ps.add_argument("--json", action="store_true")
    return p


def _check_verify_flags(p: argparse.ArgumentParser, a: argparse.Namespace) -> None:
    given = [n for n in ("samples", "seed", "dim", "test_data", "input", "atol", "rtol") if getattr(a, n) is not None]
    if given and not (a.verify or a.verify_each_pass):
        p.error("--" + given[0].replace("_", "-") + " needs --verify or --verify-each-pass")


def main(argv: Optional[List[str]] = None) -> int:
    p = _parser()
    a = p.parse_args(argv)
    if a.command is None:
        p.print_help()
        return 2
    try:
        if a.command == "passes":
            ps = passes()
            if a.json:
                print(json.dumps([vars(x) for x in ps], indent=1))
            else:
                for x in ps:
                    print(f"{x.name:40s} class {x.accuracy_class}{'' if x.default else ' (opt-in)'}  {x.description}")
            return 0
        if a.command == "inspect":
            with load(a.model) as m:
                info = m.info()
            if a.json:
                print(json.dumps(info, indent=1))
            else:
                print(f"{a.model}: ir {info['ir_version']}, producer {' '.join(info['producer']).strip() or '-'}, "
                      f"opsets {info['opsets']}")
                for kind in ("inputs", "outputs"):
                    for x in info[kind]:
                        print(f"  {kind[:-1]:6s} {x['name']}: {x['dtype']} {x['shape']}")
                print(f"  {info['nodes']} nodes, {info['initializers']} initializers "
                      f"({info['initializer_bytes'] / 2**20:.2f} MiB)")
                print("  ops: " + ", ".join(f"{k} {v}" for k, v in info["ops"].items()))
            return 0
        if a.command == "verify":
            r = verify(a.reference, a.candidate, **_verify_kwargs(a))
            print(r.json if a.json else r.summary())
            return 0 if r.passed else 1
        if a.command == "optimize":
            _check_verify_flags(p, a)
            with load(a.src) as m:
                kw = _verify_kwargs(a)
                report = m.optimize(passes=_names(a.passes), skip=_names(a.skip), input_shapes=_merge(a.input_shape),
                                    verify=a.verify, verify_each_pass=a.verify_each_pass, **kw)
                m.save(a.dst, external_data=a.external_data)
            size = os.path.getsize(a.dst)
            if a.json:
                out = json.loads(report.json)
                out["input"], out["output"], out["output_file_bytes"] = a.src, a.dst, size
                out["verify"] = None if report.verify is None else report.verify.data
                print(json.dumps(out, indent=1))
            else:
                print(report.summary())
                print(f"wrote {a.dst} ({size / 2**20:.2f} MiB)")
            return 0 if report.ok else 1
    except Error as e:
        print(f"onnxforge: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"onnxforge: {e}", file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":
    sys.exit(main())
