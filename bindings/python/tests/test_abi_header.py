"""The binding's hand-written ctypes declarations (onnxforge/_lib.py) against the C header they
mirror (include_c/onnxforge.h): every declared function exists in the header with the same return
and parameter types, and every mirrored struct is a prefix of the header's struct (fields are
appended behind struct_size, so an older prefix is valid) with the same names and types. A
mismatch here would be a crash or garbage at run time, which no other test is sure to reach."""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

import pytest

from onnxforge import _lib

HEADER = Path(__file__).resolve().parents[3] / "include_c" / "onnxforge.h"

SCALARS = {
    "int32_t": ctypes.c_int32, "uint32_t": ctypes.c_uint32, "int64_t": ctypes.c_int64,
    "uint64_t": ctypes.c_uint64, "size_t": ctypes.c_size_t, "double": ctypes.c_double,
    "ofg_status": ctypes.c_int32, "int": ctypes.c_int,
}


def strip_comments(text: str) -> str:
    """The declarations alone: no comments, no preprocessor lines."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def header_text() -> str:
    if not HEADER.exists():
        pytest.skip(f"no header at {HEADER} (the tests run from a checkout)")
    return strip_comments(HEADER.read_text())


def handles(text: str) -> set:
    """Opaque types: typedef struct ofg_x ofg_x;"""
    return set(re.findall(r"typedef struct (ofg_\w+) \1;", text))


def structs(text: str) -> dict:
    """Name -> [(field, C type)] of every typedef struct with a body."""
    out = {}
    for name, body, alias in re.findall(r"typedef struct (ofg_\w+) \{(.*?)\} (ofg_\w+);", text, flags=re.S):
        fields = []
        for decl in body.split(";"):
            decl = " ".join(decl.split())
            if not decl:
                continue
            first, *more = decl.split(",")  # "int64_t nodes_removed, nodes_added"
            m = re.match(r"(.*?)(\w+)$", first.strip())
            fields.append((m.group(2), m.group(1).strip()))
            fields += [(name.strip(), m.group(1).strip()) for name in more]
        out[alias] = fields
    return out


def functions(text: str) -> dict:
    """Name -> (return C type, [parameter C types]) of every OFG_API declaration."""
    out = {}
    for ret, name, params in re.findall(r"OFG_API\s+(.*?)\b(ofg_\w+)\s*\((.*?)\)\s*;", text, flags=re.S):
        ps = []
        params = " ".join(params.split())
        if params and params != "void":
            # a function-pointer parameter holds commas: split only outside parentheses
            depth, cur = 0, ""
            for ch in params:
                if ch == "," and depth == 0:
                    ps.append(cur.strip())
                    cur = ""
                    continue
                depth += ch == "("
                depth -= ch == ")"
                cur += ch
            ps.append(cur.strip())
        out[name] = (" ".join(ret.split()), ps)
    return out


def ctype_of(c: str, opaque: set, struct_types: dict):
    """The ctypes type a C parameter or field type needs (None for a return of void); 'FN' for a
    function pointer, which the binding declares with CFUNCTYPE."""
    c = re.sub(r"\bconst\b", " ", c)
    if "(*" in c:
        return "FN"
    stars = c.count("*")
    base = c.replace("*", " ").split()[0]  # the type's word; a parameter name, if any, follows
    if base == "void" and stars == 0:
        return None
    if base in opaque or base == "void":
        t = ctypes.c_void_p
        stars -= 1 if base in opaque else 1
    elif base == "char":
        t = ctypes.c_char_p
        stars -= 1
    elif base in SCALARS:
        t = SCALARS[base]
    elif base in struct_types:
        t = struct_types[base]
    else:
        raise AssertionError(f"unknown C type {c!r}")
    for _ in range(stars):
        t = ctypes.POINTER(t)
    return t


def same(a, b) -> bool:
    if a is b or a == b:
        return True
    # ctypes makes one POINTER class per target type, so pointers compare by what they point to
    if hasattr(a, "_type_") and hasattr(b, "_type_") and issubclass(a, ctypes._Pointer) and issubclass(b, ctypes._Pointer):
        return same(a._type_, b._type_)
    return False


STRUCTS = {"ofg_value_desc": _lib.ValueDesc, "ofg_pass_entry": _lib.PassEntry, "ofg_diff": _lib.Diff,
           "ofg_input_info": _lib.InputInfo}


def test_every_mirrored_struct_is_a_prefix_of_the_headers() -> None:
    text = header_text()
    found = structs(text)
    opaque = handles(text)
    for c_name, py in STRUCTS.items():
        assert c_name in found, f"{c_name} is not in the header"
        c_fields = found[c_name]
        py_fields = py._fields_
        assert len(py_fields) <= len(c_fields), f"{py.__name__} has more fields than {c_name}"
        for (py_name, py_type), (c_field, c_type) in zip(py_fields, c_fields):
            assert py_name == c_field, f"{py.__name__}.{py_name} stands where {c_name} has {c_field}"
            want = ctype_of(c_type, opaque, STRUCTS)
            assert same(py_type, want), f"{py.__name__}.{py_name} is {py_type}, the header's {c_type!r} needs {want}"


def test_every_declared_function_matches_the_header() -> None:
    text = header_text()
    decls = functions(text)
    opaque = handles(text)
    assert len(decls) > 80, "the header parser found too few declarations"
    for name, (res, args) in _lib._SIGNATURES.items():
        assert name in decls, f"_lib declares {name}, which the header does not"
        c_ret, c_params = decls[name]
        want_ret = ctype_of(c_ret, opaque, STRUCTS)
        assert same(res, want_ret), f"{name} returns {c_ret!r}: _lib says {res}, want {want_ret}"
        assert len(args) == len(c_params), f"{name}: _lib has {len(args)} parameters, the header {len(c_params)}"
        for i, (py_t, c_t) in enumerate(zip(args, c_params)):
            want = ctype_of(c_t, opaque, STRUCTS)
            if want == "FN":
                assert isinstance(py_t, type) and issubclass(py_t, ctypes._CFuncPtr), f"{name} parameter {i}: {c_t!r}"
                continue
            assert same(py_t, want), f"{name} parameter {i} is {c_t!r}: _lib says {py_t}, want {want}"


def test_the_checks_catch_a_wrong_declaration(monkeypatch) -> None:
    """The comparison above fails on a wrong type, so it can fail at all."""
    wrong = dict(_lib._SIGNATURES)
    wrong["ofg_options_set"] = (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32])
    monkeypatch.setattr(_lib, "_SIGNATURES", wrong)
    with pytest.raises(AssertionError, match="ofg_options_set parameter 2"):
        test_every_declared_function_matches_the_header()
