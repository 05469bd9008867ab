"""Models, options, reports and tensors over the C ABI (see include_c/onnxforge.h)."""

from __future__ import annotations

import ctypes
import json
import os
import tempfile
import weakref
from ctypes import byref, c_char_p, c_double, c_int32, c_int64, c_size_t, c_uint64, c_void_p
from dataclasses import dataclass, field
from typing import (Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union)

from . import _errors
from ._lib import LOG_FN, PROGRESS_FN, Diff, InputInfo, PassEntry, ValueDesc, lib

PathLike = Union[str, "os.PathLike[str]"]
ProgressCallback = Callable[[int, int], Optional[bool]]
LogCallback = Callable[[int, str], None]

VALUE_TENSOR, VALUE_SEQUENCE, VALUE_OPTIONAL = 1, 2, 3
LOG_INFO, LOG_WARNING = 1, 2


def _text(b: Optional[bytes]) -> str:
    return b.decode("utf-8", "replace") if b else ""


def _raise_for(status: int) -> None:
    """Turns a non-zero ofg_status into the matching exception carrying ofg_last_error()."""
    if status == 0:
        return
    message = _text(lib.ofg_last_error())
    name = _text(lib.ofg_status_string(status))
    cls = _errors.ERRORS_BY_STATUS.get(status, _errors.Error)
    raise cls(message or name, status, name)


def _entries(count: Callable[..., int], entry: Callable[..., int], struct: Any, *args: Any) -> List[Any]:
    """The sized structs of a list the C ABI hands out one by one: count(*args, &n), then
    entry(*args, i, &s) with s.struct_size set, for i < n."""
    n = c_size_t()
    _raise_for(count(*args, byref(n)))
    out = []
    for i in range(n.value):
        s = struct()
        s.struct_size = ctypes.sizeof(struct)
        _raise_for(entry(*args, i, byref(s)))
        out.append(s)
    return out


def version() -> str:
    """The version of the loaded library, "MAJOR.MINOR.PATCH"."""
    return _text(lib.ofg_version_string())


def status_string(status: int) -> str:
    """The library's text for an ``ofg_status`` number."""
    return _text(lib.ofg_status_string(status))


def elem_type_name(elem_type: int) -> str:
    """Name of an ONNX element type number ("float32" for 1, "int64" for 7, ...)."""
    return _text(lib.ofg_elem_type_name(elem_type))


# ------------------------------------------------------------------ options and callbacks

def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _shapes_spec(shapes: Union[None, str, Mapping[str, Sequence[int]]]) -> Optional[str]:
    if shapes is None:
        return None
    if isinstance(shapes, str):
        return shapes
    return ";".join(f"{k}=" + ",".join(str(int(d)) for d in v) for k, v in shapes.items())


class _Options:
    """An ``ofg_options`` handle built from a dict; also holds the ctypes callbacks alive.

    Use as a context manager; the handle is also freed by a finalizer.
    """

    def __init__(self, values: Optional[Mapping[str, Any]] = None, progress: Optional[ProgressCallback] = None,
                 log: Optional[LogCallback] = None) -> None:
        h = c_void_p()
        _raise_for(lib.ofg_options_create(byref(h)))
        self._h = h
        self._finalizer = weakref.finalize(self, lib.ofg_options_free, h)
        self.callback_error: Optional[BaseException] = None
        for k, v in (values or {}).items():
            if v is not None:
                _raise_for(lib.ofg_options_set(h, k.encode(), _fmt(v).encode()))
        self._progress_fn = None
        self._log_fn = None
        if progress is not None:
            def on_progress(_user: Any, done: int, total: int) -> int:
                if self.callback_error is not None:
                    return 1
                try:
                    return 1 if progress(done, total) is False else 0
                except BaseException as e:  # noqa: BLE001 - re-raised after the C call returns
                    self.callback_error = e
                    return 1
            self._progress_fn = PROGRESS_FN(on_progress)
            _raise_for(lib.ofg_options_set_progress(h, self._progress_fn, None))
        if log is not None:
            def on_log(_user: Any, level: int, message: bytes) -> None:
                try:
                    log(level, _text(message))
                except BaseException as e:  # noqa: BLE001
                    if self.callback_error is None:
                        self.callback_error = e
            self._log_fn = LOG_FN(on_log)
            _raise_for(lib.ofg_options_set_log(h, self._log_fn, None))

    @property
    def handle(self) -> c_void_p:
        return self._h

    def check(self, status: int) -> None:
        """Raises what a callback raised (it cancelled the call), else the status' exception."""
        if self.callback_error is not None:
            e, self.callback_error = self.callback_error, None
            raise e
        _raise_for(status)

    def close(self) -> None:
        self._finalizer()

    def __enter__(self) -> "_Options":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _verify_values(samples: Optional[int] = None, seed: Optional[int] = None, atol: Optional[float] = None,
                   rtol: Optional[float] = None, dims: Optional[Mapping[str, int]] = None,
                   input_shapes: Union[None, str, Mapping[str, Sequence[int]]] = None,
                   test_data: Optional[PathLike] = None, input_files: Optional[Mapping[str, str]] = None,
                   int_high: Optional[int] = None, max_tries: Optional[int] = None) -> Dict[str, Any]:
    v: Dict[str, Any] = {
        "verify.samples": samples, "verify.seed": seed, "verify.atol": None if atol is None else repr(float(atol)),
        "verify.rtol": None if rtol is None else repr(float(rtol)), "verify.int_high": int_high,
        "verify.max_tries": max_tries, "verify.input_shapes": _shapes_spec(input_shapes),
        "verify.test_data": None if test_data is None else os.fspath(test_data),
    }
    for name, size in (dims or {}).items():
        v["verify.dim." + name] = int(size)
    for name, path in (input_files or {}).items():
        v["verify.input." + name] = path
    return v


# ------------------------------------------------------------------ tensors <-> numpy

_NP_BY_ELEM = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 9: "bool",
               10: "float16", 11: "float64", 12: "uint32", 13: "uint64"}
_ELEM_BY_NP = {v: k for k, v in _NP_BY_ELEM.items()}
BFLOAT16 = 16


def _np() -> Any:
    try:
        import numpy
    except ImportError as e:  # pragma: no cover - numpy is a dependency of run()
        raise ImportError("onnxforge: running models needs numpy (Debian: python3-numpy)") from e
    return numpy


def _tensor_from_array(array: Any) -> c_void_p:
    np = _np()
    a = np.asarray(array)
    if a.dtype.name not in _ELEM_BY_NP:
        raise TypeError(f"onnxforge: numpy dtype {a.dtype} has no supported ONNX element type")
    a = np.ascontiguousarray(a)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    dims = (c_int64 * max(1, a.ndim))(*a.shape)
    h = c_void_p()
    _raise_for(lib.ofg_tensor_create(_ELEM_BY_NP[a.dtype.name], dims, a.ndim, a.ctypes.data_as(c_void_p),
                                     a.nbytes, byref(h)))
    return h


def _array_from_tensor(t: c_void_p) -> Any:
    """A numpy array owning a copy of the tensor's data (bfloat16 is widened to float32)."""
    np = _np()
    et = lib.ofg_tensor_elem_type(t)
    rank = lib.ofg_tensor_rank(t)
    dims_p = lib.ofg_tensor_dims(t)
    shape = tuple(dims_p[i] for i in range(rank))
    nbytes = lib.ofg_tensor_nbytes(t)
    raw = ctypes.string_at(lib.ofg_tensor_data(t), nbytes) if nbytes else b""
    if et == BFLOAT16:
        bits = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
        return bits.view(np.float32).reshape(shape)
    if et not in _NP_BY_ELEM:
        raise _errors.UnsupportedError(f"element type {elem_type_name(et)} has no numpy dtype", 5, "unsupported")
    return np.frombuffer(raw, dtype=np.dtype(_NP_BY_ELEM[et]).newbyteorder("<")).reshape(shape).copy()


def _value_from_python(v: Any) -> c_void_p:
    """ndarray/scalar -> tensor value; list/tuple of arrays -> sequence; None -> empty optional."""
    out = c_void_p()
    if v is None:
        _raise_for(lib.ofg_value_create_optional(None, byref(out)))
        return out
    if isinstance(v, (list, tuple)):
        tensors = [_tensor_from_array(x) for x in v]
        try:
            np = _np()
            et = _ELEM_BY_NP.get(np.asarray(v[0]).dtype.name, 1) if v else 1
            arr = (c_void_p * max(1, len(tensors)))(*[t.value for t in tensors])
            _raise_for(lib.ofg_value_create_sequence(et, arr, len(tensors), byref(out)))
        finally:
            for t in tensors:
                lib.ofg_tensor_free(t)
        return out
    t = _tensor_from_array(v)
    try:
        _raise_for(lib.ofg_value_from_tensor(t, byref(out)))
    finally:
        lib.ofg_tensor_free(t)
    return out


def _python_from_value(v: c_void_p) -> Any:
    kind = lib.ofg_value_kind(v)
    if kind == VALUE_TENSOR:
        t = c_void_p()
        _raise_for(lib.ofg_value_tensor(v, byref(t)))
        return _array_from_tensor(t)
    if kind == VALUE_SEQUENCE:
        n = c_size_t()
        _raise_for(lib.ofg_value_sequence_length(v, byref(n)))
        items = []
        for i in range(n.value):
            t = c_void_p()
            _raise_for(lib.ofg_value_sequence_at(v, i, byref(t)))
            items.append(_array_from_tensor(t))
        return items
    has = c_int32()
    _raise_for(lib.ofg_value_optional_has_value(v, byref(has)))
    if not has.value:
        return None
    inner = c_void_p()
    _raise_for(lib.ofg_value_optional_element(v, byref(inner)))
    return _python_from_value(inner)


def load_tensor_pb(path_or_bytes: Union[PathLike, bytes]) -> Any:
    """Reads a serialized ONNX TensorProto (a .pb file of the backend tests) as a numpy array."""
    data = path_or_bytes if isinstance(path_or_bytes, (bytes, bytearray)) else open(path_or_bytes, "rb").read()
    buf = ctypes.create_string_buffer(bytes(data), len(data))
    t = c_void_p()
    _raise_for(lib.ofg_tensor_load_pb(buf, len(data), byref(t)))
    try:
        return _array_from_tensor(t)
    finally:
        lib.ofg_tensor_free(t)


def save_tensor_pb(array: Any, name: Optional[str] = None) -> bytes:
    """Serializes a numpy array as an ONNX TensorProto named `name`."""
    t = _tensor_from_array(array)
    data, size = c_void_p(), c_size_t()
    try:
        _raise_for(lib.ofg_tensor_save_pb(t, name.encode() if name else None, byref(data), byref(size)))
        try:
            return ctypes.string_at(data, size.value)
        finally:
            lib.ofg_buffer_free(data)
    finally:
        lib.ofg_tensor_free(t)


# ------------------------------------------------------------------ reports

@dataclass(frozen=True)
class PassInfo:
    """A pass of the library: name, description, accuracy class (0 exact, 1 bounded float
    rounding, 2 pattern rewrite) and whether the default pipeline runs it."""

    name: str
    description: str
    accuracy_class: int
    default: bool


@dataclass(frozen=True)
class PassRun:
    """One run of one pass in an optimization (see ``ofg_pass_entry``)."""

    name: str
    accuracy_class: int
    iteration: int
    milliseconds: float
    changes: int
    nodes_removed: int
    nodes_added: int
    nodes_before: int
    nodes_after: int
    bytes_before: int
    bytes_after: int
    rolled_back: bool
    note: str


@dataclass(frozen=True)
class OutputDiff:
    """Differences of one output (see ``ofg_diff``)."""

    name: str
    passed: bool
    max_abs: float
    max_rel: float
    mismatches: int
    elements: int
    worst_index: int
    first_mismatch: int
    problem: Optional[str]


@dataclass(frozen=True)
class VerifyInput:
    """One input of the first sample verification ran."""

    name: str
    elem_type: int
    shape: Tuple[int, ...]
    source: str


@dataclass
class VerifyReport:
    """What ``verify`` found: ``passed``, per-output differences, the inputs used and how they
    were chosen (``note``), and the library's JSON (``json``, also as the dict ``data``)."""

    passed: bool
    outputs: List[OutputDiff]
    inputs: List[VerifyInput]
    note: str
    json: str
    data: Dict[str, Any] = field(repr=False, default_factory=dict)

    def __bool__(self) -> bool:
        return self.passed

    @property
    def samples(self) -> int:
        return int(self.data.get("samples", 0))

    def summary(self) -> str:
        """A few lines of text: verdict, note, and the worst output."""
        lines = [("PASSED" if self.passed else "FAILED") + f": {len(self.outputs)} output(s) compared",
                 "inputs: " + self.note]
        for d in self.outputs:
            state = "ok" if d.passed else ("problem: " + d.problem if d.problem else f"{d.mismatches} mismatches")
            lines.append(f"  {d.name}: max abs {d.max_abs:.3g}, max rel {d.max_rel:.3g}, {d.elements} elements, {state}")
        return "\n".join(lines)

    @classmethod
    def _from_handle(cls, h: c_void_p) -> "VerifyReport":
        passed = c_int32()
        _raise_for(lib.ofg_report_passed(h, byref(passed)))
        outputs = [OutputDiff(_text(d.name), bool(d.passed), d.max_abs, d.max_rel, d.mismatches, d.elements,
                              d.worst_index, d.first_mismatch, _text(d.problem) if d.problem else None)
                   for d in _entries(lib.ofg_report_output_count, lib.ofg_report_output, Diff, h)]
        inputs = [VerifyInput(_text(info.name), info.elem_type, tuple(info.dims[k] for k in range(info.rank)),
                              _text(info.source))
                  for info in _entries(lib.ofg_report_input_count, lib.ofg_report_input, InputInfo, h)]
        text = _text(lib.ofg_report_json(h))
        return cls(bool(passed.value), outputs, inputs, _text(lib.ofg_report_note(h)), text,
                   json.loads(text) if text else {})


@dataclass
class Report:
    """What ``Model.optimize`` did: one ``PassRun`` per pass run, totals, and the verification
    result when ``verify=True`` was given (``verify``; None otherwise)."""

    passes: List[PassRun]
    nodes_before: int
    nodes_after: int
    bytes_before: int
    bytes_after: int
    milliseconds: float
    iterations: int
    json: str
    verify: Optional[VerifyReport] = None

    @property
    def ok(self) -> bool:
        """False only when verification ran and failed."""
        return self.verify is None or self.verify.passed

    @property
    def rolled_back(self) -> List[PassRun]:
        return [p for p in self.passes if p.rolled_back]

    @property
    def not_applied(self) -> List[dict]:
        """Why rules left nodes alone: ``{"pass", "rule", "node", "op", "reason"}`` each, once over
        all rounds ("node" is "" when the whole pass declined, e.g. "opset 13 has no
        LayerNormalization: use --target-opset 17"; then "op" is the op the rule starts from)."""
        return list(json.loads(self.json).get("not_applied", []))

    def explain(self, node: str) -> List[dict]:
        """The ``not_applied`` entries about input node ``node``, with the whole-pass ones about
        its op (the report's "rewrites", listed with ``list_rewrites``, say what did apply)."""
        mine = [d for d in self.not_applied if d["node"] == node]
        ops = {d["op"] for d in mine}
        return mine + [d for d in self.not_applied if d["node"] == "" and d["op"] in ops]

    def summary(self) -> str:
        """Node and weight totals, the passes that changed something, and the verification."""
        lines = [f"nodes {self.nodes_before} -> {self.nodes_after}, initializer bytes {self.bytes_before} -> "
                 f"{self.bytes_after}, {self.iterations} round(s), {self.milliseconds:.1f} ms"]
        for p in self.passes:
            if p.changes or p.rolled_back:
                lines.append(f"  {p.name}: {p.changes} change(s), nodes {p.nodes_before} -> {p.nodes_after}"
                             + (" ROLLED BACK: " + p.note if p.rolled_back else ""))
        if self.verify is not None:
            lines.append("verify: " + self.verify.summary())
        return "\n".join(lines)

    @classmethod
    def _from_handle(cls, h: c_void_p) -> "Report":
        runs = [PassRun(_text(e.name), e.accuracy_class, e.iteration, e.milliseconds, e.changes, e.nodes_removed,
                        e.nodes_added, e.nodes_before, e.nodes_after, e.bytes_before, e.bytes_after,
                        bool(e.rolled_back), _text(e.note))
                for e in _entries(lib.ofg_pass_report_count, lib.ofg_pass_report_entry, PassEntry, h)]
        nb, na, bb, ba, ms, it = c_int64(), c_int64(), c_uint64(), c_uint64(), c_double(), c_int32()
        _raise_for(lib.ofg_pass_report_totals(h, byref(nb), byref(na), byref(bb), byref(ba), byref(ms), byref(it)))
        return cls(runs, nb.value, na.value, bb.value, ba.value, ms.value, it.value,
                   _text(lib.ofg_pass_report_json(h)))


def passes() -> List[PassInfo]:
    """Every pass the library has, in registry order."""
    return [PassInfo(_text(lib.ofg_pass_name(i)), _text(lib.ofg_pass_description(i)), lib.ofg_pass_class(i),
                     bool(lib.ofg_pass_in_default_pipeline(i))) for i in range(lib.ofg_pass_count())]


# ------------------------------------------------------------------ target profiles

@dataclass(frozen=True)
class TargetInfo:
    """A target profile built into the library (``onnxforge targets``): what a converter accepts,
    transcribed from the vendor document named by ``source``, ``url`` and ``version``."""
    name: str
    title: str
    source: str
    url: str
    version: str
    opset_min: int  # 0: the document states no range
    opset_max: int  # 0: no upper bound
    ops: int


@dataclass(frozen=True)
class TargetFinding:
    """One rule a node breaks: ``rule`` is "op", "opset", "attribute", "constant", "zero_point",
    "rank", "dtype", or "model_opset" (node "": the model's opset is outside the target's range)."""
    node: str
    op: str
    graph: str
    rule: str
    message: str


@dataclass(frozen=True)
class TargetCheck:
    """The answer of :meth:`Model.check_target`; true when the target accepts every node."""
    target: str
    model_opset: int
    nodes: int
    illegal_nodes: int
    findings: List[TargetFinding]
    json: str

    def __bool__(self) -> bool:
        return not self.findings


@dataclass(frozen=True)
class TargetLegalisation:
    """The answer of :meth:`Model.legalize_for_target`; true when nothing illegal is left."""
    target: str
    opset_before: int
    opset_after: int
    illegal_before: int
    illegal_after: int
    rewrites: List[Dict[str, str]]  # {"node", "op", "what"}
    notes: List[str]
    findings: List[TargetFinding]
    verified: str
    json: str

    def __bool__(self) -> bool:
        return not self.findings


def _take_json(status_call: Callable[[Any], int]) -> Any:
    """Calls a function that hands out a JSON string (char**), frees it and returns the text."""
    out = c_char_p()
    _raise_for(status_call(byref(out)))
    try:
        text = (out.value or b"").decode("utf-8")
    finally:
        lib.ofg_buffer_free(ctypes.cast(out, c_void_p))
    return text


def targets() -> List[TargetInfo]:
    """The target profiles built into the library; ``"opset:N"`` (N from 7 to 28) is accepted too."""
    data = json.loads(_take_json(lambda out: lib.ofg_targets_json(out)))
    return [TargetInfo(t["name"], t["title"], t["source"], t["url"], t["version"], t["opset_min"], t["opset_max"],
                       t["ops"]) for t in data["targets"]]


# ------------------------------------------------------------------ models

@dataclass(frozen=True)
class ValueInfo:
    """A graph input or output: name, element type, kind ("tensor", "sequence", "optional") and
    shape (None when the rank is unknown; each dim an int, a symbol name, or None)."""

    name: str
    elem_type: int
    kind: str
    shape: Optional[Tuple[Union[int, str, None], ...]]

    @property
    def dtype(self) -> str:
        return elem_type_name(self.elem_type) if self.elem_type else ""


_KINDS = {VALUE_TENSOR: "tensor", VALUE_SEQUENCE: "sequence", VALUE_OPTIONAL: "optional"}


class Model:
    """An ONNX model held by the library. Made by :func:`load`, :func:`demo` or :meth:`clone`.

    The handle is released by :meth:`close`, by leaving a ``with`` block, or by a finalizer when
    the object is collected. A model is not thread-safe: use one per thread (see :meth:`clone`).
    """

    def __init__(self, handle: c_void_p) -> None:
        self._h = handle
        self._finalizer = weakref.finalize(self, lib.ofg_model_free, handle)

    # -- lifetime
    @property
    def _handle(self) -> c_void_p:
        if not self._finalizer.alive:
            raise _errors.InvalidArgumentError("onnxforge: the model was closed", 1, "invalid argument")
        return self._h

    def close(self) -> None:
        """Releases the model now (later calls raise InvalidArgumentError)."""
        self._finalizer()

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def __enter__(self) -> "Model":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def clone(self) -> "Model":
        """An independent copy (``ofg_model_clone``)."""
        out = c_void_p()
        _raise_for(lib.ofg_model_clone(self._handle, byref(out)))
        return Model(out)

    __copy__ = clone

    def __deepcopy__(self, memo: Any) -> "Model":
        return self.clone()

    # -- queries
    @property
    def ir_version(self) -> int:
        v = c_int64()
        _raise_for(lib.ofg_model_ir_version(self._handle, byref(v)))
        return v.value

    @property
    def producer(self) -> Tuple[str, str]:
        """(producer_name, producer_version), "" when absent."""
        n, v = c_char_p(), c_char_p()
        _raise_for(lib.ofg_model_producer(self._handle, byref(n), byref(v)))
        return _text(n.value), _text(v.value)

    @property
    def opsets(self) -> Dict[str, int]:
        """Opset imports, domain ("" for the default ONNX domain) -> version."""
        n = c_size_t()
        _raise_for(lib.ofg_model_opset_count(self._handle, byref(n)))
        out = {}
        for i in range(n.value):
            d, v = c_char_p(), c_int64()
            _raise_for(lib.ofg_model_opset(self._handle, i, byref(d), byref(v)))
            out[_text(d.value)] = v.value
        return out

    def _io(self, kind: int) -> List[ValueInfo]:
        h = self._handle
        out = []
        for i, desc in enumerate(_entries(lib.ofg_model_io_count, lib.ofg_model_io, ValueDesc, h, kind)):
            shape: Optional[Tuple[Union[int, str, None], ...]] = None
            if desc.rank >= 0:
                dims: List[Union[int, str, None]] = []
                for k in range(desc.rank):
                    v, sym = c_int64(), c_char_p()
                    _raise_for(lib.ofg_model_io_dim(h, kind, i, k, byref(v), byref(sym)))
                    dims.append(v.value if v.value >= 0 else (_text(sym.value) if sym.value else None))
                shape = tuple(dims)
            out.append(ValueInfo(_text(desc.name), desc.elem_type, _KINDS.get(desc.kind, "unknown"), shape))
        return out

    @property
    def inputs(self) -> List[ValueInfo]:
        """Graph inputs (including those that have an initializer as default)."""
        return self._io(0)

    @property
    def outputs(self) -> List[ValueInfo]:
        return self._io(1)

    def node_count(self, include_subgraphs: bool = False) -> int:
        n = c_size_t()
        _raise_for(lib.ofg_model_node_count(self._handle, 1 if include_subgraphs else 0, byref(n)))
        return n.value

    def op_histogram(self) -> Dict[str, int]:
        """Op types of the main graph -> count, most frequent first ("domain::Op" outside the
        default domain)."""
        h = self._handle
        n = c_size_t()
        _raise_for(lib.ofg_model_op_histogram_count(h, byref(n)))
        out: Dict[str, int] = {}
        for i in range(n.value):
            d, op, c = c_char_p(), c_char_p(), c_size_t()
            _raise_for(lib.ofg_model_op_histogram_entry(h, i, byref(d), byref(op), byref(c)))
            dom = _text(d.value)
            out[(dom + "::" if dom and dom != "ai.onnx" else "") + _text(op.value)] = c.value
        return out

    def initializer_stats(self) -> Tuple[int, int]:
        """(number of initializers, bytes of their data) of the main graph."""
        n, b = c_size_t(), c_uint64()
        _raise_for(lib.ofg_model_initializer_stats(self._handle, byref(n), byref(b)))
        return n.value, b.value

    def info(self) -> Dict[str, Any]:
        """Everything the queries return, as one dict (what ``python3 -m onnxforge inspect`` prints)."""
        inits, nbytes = self.initializer_stats()
        io = lambda vs: [{"name": v.name, "dtype": v.dtype, "kind": v.kind,  # noqa: E731
                          "shape": None if v.shape is None else list(v.shape)} for v in vs]
        return {"ir_version": self.ir_version, "producer": list(self.producer), "opsets": self.opsets,
                "inputs": io(self.inputs), "outputs": io(self.outputs), "nodes": self.node_count(),
                "nodes_with_subgraphs": self.node_count(True), "initializers": inits, "initializer_bytes": nbytes,
                "ops": self.op_histogram()}

    def __repr__(self) -> str:
        if self.closed:
            return "<onnxforge.Model closed>"
        return f"<onnxforge.Model {self.node_count()} nodes, inputs {[v.name for v in self.inputs]}>"

    # -- transformations
    def optimize(self, passes: Optional[Iterable[str]] = None, skip: Optional[Iterable[str]] = None,
                 input_shapes: Union[None, str, Mapping[str, Sequence[int]]] = None, verify: bool = False,
                 verify_each_pass: bool = False, max_iterations: Optional[int] = None, check_each_pass: bool = False,
                 samples: Optional[int] = None, seed: Optional[int] = None, atol: Optional[float] = None,
                 rtol: Optional[float] = None, dims: Optional[Mapping[str, int]] = None,
                 test_data: Optional[PathLike] = None, inputs: Optional[Mapping[str, Any]] = None,
                 progress: Optional[ProgressCallback] = None, log: Optional[LogCallback] = None,
                 threads: Optional[int] = None, max_rewrites: Optional[int] = None,
                 fold_budget: Optional[int] = None, explain: bool = True, provenance: bool = False,
                 keep_names: bool = False) -> Report:
        """Optimizes the model in place and returns what was done.

        Args:
            passes: pass names to run instead of the default pipeline (see :func:`passes`).
            skip: pass names not to run.
            input_shapes: fix graph input shapes first, ``{"input": [1, 3, 224, 224]}``.
            verify: afterwards, run the model as it was and as it is on the same inputs and put
                the comparison in ``Report.verify`` (a failed comparison does not raise; check
                ``report.ok``).
            verify_each_pass: verify each pass that may change float results and roll it back
                when the outputs drift.
            max_iterations, check_each_pass: see ``ofg_optimize``.
            samples, seed, atol, rtol, dims, test_data, inputs: verification settings, as for
                :func:`verify`.
            progress: ``progress(done, total)`` after each pass (and verification sample);
                returning False cancels with :class:`CancelledError`.
            log: ``log(level, message)`` for notable events (a pass rolled back...).
            threads: threads for the ops the passes and the verification run (option
                ``run.threads``; default: the machine's cores, 1: one thread).
            max_rewrites: stop after this many rewrites (``optimize.max_rewrites``; 0: none);
                ``json.loads(report.json)["rewrites"]`` lists them (pass, rule, node).
            fold_budget: bytes one constant fold may add to the model (``optimize.fold_budget``;
                default 4096).
            explain: collect why rules left nodes alone (``optimize.explain``; default on):
                ``report.not_applied`` and ``report.explain(node)``.
            provenance: ``json.loads(report.json)["provenance"]`` maps each output node's name
                to the original nodes it came from, ``["folded"]`` each folded initializer to
                the nodes folded into it (``optimize.provenance``; unnamed output nodes are
                given names).
            keep_names: every value that stays keeps its name (``optimize.keep_names``).
        """
        values: Dict[str, Any] = {
            "run.threads": threads,
            "optimize.passes": None if passes is None else ",".join(passes),
            "optimize.skip": None if skip is None else ",".join(skip),
            "optimize.input_shapes": _shapes_spec(input_shapes),
            "optimize.max_iterations": max_iterations,
            "optimize.max_rewrites": max_rewrites,
            "optimize.fold_budget": fold_budget,
            "optimize.check_each_pass": True if check_each_pass else None,
            "optimize.verify_each_pass": True if verify_each_pass else None,
            "optimize.explain": None if explain else False,
            "optimize.provenance": True if provenance else None,
            "optimize.keep_names": True if keep_names else None,
        }
        with _InputFiles(inputs) as files:
            values.update(_verify_values(samples, seed, atol, rtol, dims, None, test_data, files.paths))
            with _Options(values, progress, log) as o:
                original = self.clone() if verify else None
                try:
                    rh = c_void_p()
                    o.check(lib.ofg_optimize(self._handle, o.handle, byref(rh)))
                    try:
                        report = Report._from_handle(rh)
                    finally:
                        lib.ofg_pass_report_free(rh)
                    if original is not None:
                        vh = c_void_p()
                        o.check(lib.ofg_verify(original._handle, self._handle, o.handle, byref(vh)))
                        try:
                            report.verify = VerifyReport._from_handle(vh)
                        finally:
                            lib.ofg_report_free(vh)
                    return report
                finally:
                    if original is not None:
                        original.close()

    # --- precision conversion
    def convert_float(self, dtype: str = "float16", keep_io_types: bool = True,
                      block_ops: Optional[Iterable[str]] = None, block_nodes: Optional[Iterable[str]] = None,
                      verify: bool = True, test_data: Optional[PathLike] = None,
                      atol: Optional[float] = None, rtol: Optional[float] = None,
                      log: Optional[LogCallback] = None) -> Report:
        """Converts the model's float32 computation to ``dtype`` ("float16" or "bfloat16") in place
        (``ofg_convert_float``): inputs and outputs stay float32 unless ``keep_io_types=False``;
        ``block_ops``/``block_nodes`` stay float32. With ``verify`` the result is run against the
        float32 model (real data from ``test_data``, else drawn inputs) and the nodes whose
        conversion makes the outputs drift stay float32; ``json.loads(report.json)`` lists what
        stayed float32 and why. Raises :class:`VerifyFailedError` (model unchanged) when no mixed
        precision model verifies. Default tolerance: float16 1e-2, bfloat16 1.5e-1 (atol, rtol).
        """
        if dtype not in ("float16", "bfloat16"):
            raise ValueError(f"Model.convert_float: dtype must be 'float16' or 'bfloat16', got {dtype!r}")
        values: Dict[str, Any] = {
            "convert.float": dtype,
            "convert.keep_io_types": bool(keep_io_types),
            "convert.verify": bool(verify),
            "convert.block_ops": None if block_ops is None else ",".join(block_ops),
            "convert.block_nodes": None if block_nodes is None else ",".join(block_nodes),
        }
        values.update(_verify_values(None, None, atol, rtol, None, None, test_data, {}))
        with _Options(values, None, log) as o:
            rh = c_void_p()
            o.check(lib.ofg_convert_float(self._handle, o.handle, byref(rh)))
            try:
                return Report._from_handle(rh)
            finally:
                lib.ofg_pass_report_free(rh)
    # --- end precision conversion

    # ---- opset conversion (issue 22, part 2)
    def check_target(self, target: str) -> TargetCheck:
        """Every node the target profile ``target`` (see :func:`targets`, or ``"opset:N"``) does not
        accept, with the rule it breaks. The model is not changed. An unknown name raises
        :class:`InvalidArgumentError` listing the known ones."""
        if not isinstance(target, str):
            raise TypeError(f"Model.check_target: target must be a str, got {type(target).__name__}")
        text = _take_json(lambda out: lib.ofg_check_target(self._handle, target.encode("utf-8"), out))
        d = json.loads(text)
        return TargetCheck(d["target"], d["model_opset"], d["nodes"], d["illegal_nodes"],
                           [TargetFinding(f["node"], f["op"], f["graph"], f["rule"], f["message"]) for f in d["findings"]],
                           text)

    def legalize_for_target(self, target: str, verify: bool = True, samples: Optional[int] = None,
                            seed: Optional[int] = None, threads: Optional[int] = None) -> TargetLegalisation:
        """Rewrites the model in place so that it uses only what the target profile ``target``
        accepts, where an exact rewrite exists (opset moved into the target's range, fused ops the
        target lacks decomposed, Gemm <-> MatMul+Add), as ``onnxforge optimize --target`` does
        after its passes. Unless ``verify=False`` the result is checked against the model as it
        was by running both; outputs that differ raise :class:`VerifyFailedError` and leave the
        model unchanged. What is still illegal is in ``findings`` (not an error)."""
        if not isinstance(target, str):
            raise TypeError(f"Model.legalize_for_target: target must be a str, got {type(target).__name__}")
        values: Dict[str, Any] = {"run.threads": threads, "convert.verify": verify}
        values.update(_verify_values(samples, seed, None, None, None, None, None, None))
        with _Options(values) as o:
            text = _take_json(lambda out: o.check(lib.ofg_legalize_for_target(self._handle, target.encode("utf-8"),
                                                                              o.handle, out)) or 0)
        d = json.loads(text)
        return TargetLegalisation(d["target"], d["opset_before"], d["opset_after"], d["illegal_before"],
                                  d["illegal_after"], d["rewrites"], d["notes"],
                                  [TargetFinding(f["node"], f["op"], f["graph"], f["rule"], f["message"])
                                   for f in d["findings"]], d["verified"], text)

    def convert_opset(self, target: int, verify: bool = True, samples: Optional[int] = None,
                      seed: Optional[int] = None, atol: Optional[float] = None, rtol: Optional[float] = None,
                      dims: Optional[Mapping[str, int]] = None, test_data: Optional[PathLike] = None,
                      threads: Optional[int] = None) -> Report:
        """Converts the default ONNX domain to opset ``target`` (up or down) in place.

        The conversion is made on a copy and, unless ``verify=False``, checked against the model
        as it was by running both (``samples``... as for :func:`verify`); only then does it replace
        the model. A node with no adapter to ``target`` raises :class:`UnsupportedError` naming
        each such node, op and opset; outputs that differ raise :class:`VerifyFailedError`. In both
        cases the model is unchanged. ``json.loads(report.json)["rewrites"]`` lists the adapted
        nodes; ``report.passes[0].note`` sums up the conversion.
        """
        if not isinstance(target, int) or isinstance(target, bool):
            raise TypeError(f"Model.convert_opset: target must be an int, got {type(target).__name__}")
        if not isinstance(verify, bool):
            raise TypeError(f"Model.convert_opset: verify must be True or False, got {type(verify).__name__}")
        values: Dict[str, Any] = {"run.threads": threads, "convert.verify": verify}
        values.update(_verify_values(samples, seed, atol, rtol, dims, None, test_data, None))
        with _Options(values) as o:
            rh = c_void_p()
            o.check(lib.ofg_convert_opset(self._handle, target, o.handle, byref(rh)))
            try:
                return Report._from_handle(rh)
            finally:
                lib.ofg_pass_report_free(rh)
    # ---- end opset conversion

    def run_pass(self, name: str) -> Report:
        """Runs one pass by name once."""
        rh = c_void_p()
        _raise_for(lib.ofg_run_pass(self._handle, name.encode(), None, byref(rh)))
        try:
            return Report._from_handle(rh)
        finally:
            lib.ofg_pass_report_free(rh)

    def run(self, inputs: Mapping[str, Any], threads: Optional[int] = None) -> Dict[str, Any]:
        """Runs the main graph with the library's interpreter.

        Args:
            inputs: graph input name -> numpy array (any array-like; bool and float16 included),
                a list of arrays for a sequence input, or None for an empty optional. Inputs
                that have an initializer may be left out.
            threads: threads for the ops (option ``run.threads``; default: the machine's cores,
                1: one thread). Results are the same on any number of threads.
        Returns:
            graph output name -> numpy array (a list for sequences, None for an empty optional),
            in graph-output order. bfloat16 outputs are widened to float32.
        """
        if not isinstance(inputs, Mapping):
            raise TypeError(f"Model.run: inputs must map input names to arrays, got {type(inputs).__name__}")
        names = list(inputs)
        for n in names:
            if not isinstance(n, str):
                raise TypeError(f"Model.run: input names must be str, got {type(n).__name__}")
        # A list or tuple is a sequence only for an input declared as one; for a tensor input it is
        # the nested lists of its elements (numpy makes the array, in the declared element type).
        declared = {vi.name: vi for vi in self.inputs}
        vals: List[c_void_p] = []
        try:
            for n in names:
                v = inputs[n]
                vi = declared.get(n)
                if isinstance(v, (list, tuple)) and (vi is None or vi.kind != "sequence"):
                    np = _np()
                    dtype = _NP_BY_ELEM.get(vi.elem_type) if vi is not None else None
                    try:
                        v = np.asarray(v, dtype=dtype)
                    except (TypeError, ValueError) as e:
                        raise TypeError(f"Model.run: input {n!r} is a {type(v).__name__} that is not a "
                                        f"rectangular array of numbers: {e}") from None
                elif not isinstance(v, (list, tuple)) and v is not None and not hasattr(v, "__array__") \
                        and not isinstance(v, (int, float, complex, bool)):
                    raise TypeError(f"Model.run: input {n!r} must be an array-like, got {type(v).__name__}")
                vals.append(_value_from_python(v))
            c_names = (c_char_p * max(1, len(names)))(*[n.encode() for n in names])
            c_vals = (c_void_p * max(1, len(vals)))(*[v.value for v in vals])
            n_out = c_size_t()
            outs = ctypes.POINTER(c_void_p)()
            with _Options({"run.threads": threads}) as o:
                o.check(lib.ofg_run_values(self._handle, o.handle, len(names), c_names, c_vals, byref(n_out),
                                           byref(outs)))
            try:
                result: Dict[str, Any] = {}
                for i in range(n_out.value):
                    v = c_void_p(outs[i])
                    result[_text(lib.ofg_value_name(v))] = _python_from_value(v)
                return result
            finally:
                lib.ofg_values_free(outs, n_out.value)
        finally:
            for v in vals:
                lib.ofg_value_free(v)

    # -- output
    def save(self, path: PathLike, external_data: Optional[bool] = None, external_threshold: Optional[int] = None,
             external_file: Optional[str] = None, durable: bool = False) -> None:
        """Saves atomically to `path` (a failure or an interrupt leaves any previous file intact).

        With ``external_data=True`` tensors of at least ``external_threshold`` bytes (default
        1024) go to one data file beside the model (``external_file``, default the model file
        name + ".data"). By default (None) the input's layout is kept: a model loaded with
        external data, or one over protobuf's 2 GiB limit, is saved with a data file.
        ``external_data=False`` keeps everything inline (a model over 2 GiB then raises
        LimitError before anything is written)."""
        if external_data is not None and not isinstance(external_data, bool):
            raise TypeError(f"Model.save: external_data must be True, False or None, got {type(external_data).__name__}")
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"Model.save: path must be a str or os.PathLike, got {type(path).__name__}")
        values = {"save.external_data": external_data, "save.external_threshold": external_threshold,
                  "save.external_file": external_file, "save.durable": True if durable else None}
        with _Options(values) as o:
            _raise_for(lib.ofg_save(self._handle, os.fsencode(os.fspath(path)), o.handle))

    def to_bytes(self) -> bytes:
        """The serialized ModelProto."""
        data, size = c_void_p(), c_size_t()
        _raise_for(lib.ofg_save_to_memory(self._handle, None, byref(data), byref(size)))
        try:
            return ctypes.string_at(data, size.value)
        finally:
            lib.ofg_buffer_free(data)

    def to_onnx(self) -> Any:
        """The model as an ``onnx.ModelProto`` (needs the onnx package)."""
        try:
            import onnx
        except ImportError as e:
            raise ImportError("onnxforge: Model.to_onnx needs the onnx package (Debian: python3-onnx)") from e
        return onnx.load_from_string(self.to_bytes())


def load(source: Any, external_data_dir: Optional[PathLike] = None) -> Model:
    """Loads a model from a file path, from bytes (bytes, bytearray, memoryview), or from an
    ``onnx.ModelProto``.

    Files are memory-mapped (weights are not copied). Bytes are copied by the library once, so
    the caller's object may be freed right after the call. ``external_data_dir`` is the folder
    external-data locations are relative to (default: the file's folder; memory loads refuse
    external data without it).
    """
    values: Dict[str, Any] = {"load.external_data_dir": None if external_data_dir is None else
                              os.fspath(external_data_dir)}
    if hasattr(source, "SerializeToString") and not isinstance(source, (bytes, bytearray, memoryview)):
        source = source.SerializeToString()
    out = c_void_p()
    if isinstance(source, (bytes, bytearray, memoryview)):
        values["load.copy_buffer"] = True  # never view memory Python may free or move
        data = bytes(source) if not isinstance(source, bytes) else source
        with _Options(values) as o:
            _raise_for(lib.ofg_load_from_memory(data, len(data), o.handle, byref(out)))
        return Model(out)
    if isinstance(source, (str, os.PathLike)):
        with _Options(values) as o:
            _raise_for(lib.ofg_load(os.fsencode(os.fspath(source)), o.handle, byref(out)))
        return Model(out)
    raise TypeError(f"onnxforge.load: expected a path, bytes or onnx.ModelProto, got {type(source).__name__}")


def demo() -> Model:
    """A small built-in model (CNN + MLP with typical export leftovers) for trying things out."""
    out = c_void_p()
    _raise_for(lib.ofg_model_create_demo(byref(out)))
    return Model(out)


def _as_model(m: Any) -> Tuple[Model, bool]:
    return (m, False) if isinstance(m, Model) else (load(m), True)


def diff(a: Any, b: Any, provenance: Any = None) -> Dict[str, Any]:
    """What differs between models ``a`` and ``b`` (each a :class:`Model` or anything :func:`load`
    takes), node by node: the library's JSON (keys in docs/diff.md) parsed into a dict, e.g.
    ``d["identical"]``, ``d["summary"]["fused"]``, ``d["nodes"]["removed"]``.

    ``provenance``, when ``b`` came from ``a`` through optimize: the optimize report holding
    ``"provenance": {b node: [a nodes]}`` as a :class:`Report`, a dict (the parsed report or the
    mapping alone) or the path of a report file (``onnxforge optimize --report``). Without it nodes
    are matched by output names, then by structure. Bad provenance raises InvalidArgumentError.
    """
    if provenance is None:
        prov: Optional[bytes] = None
    elif isinstance(provenance, Report):
        prov = provenance.json.encode("utf-8")
    elif isinstance(provenance, Mapping):
        prov = json.dumps(provenance).encode("utf-8")
    elif isinstance(provenance, (str, os.PathLike)):
        with open(provenance, "rb") as f:
            prov = f.read()
    else:
        raise TypeError(f"onnxforge.diff: provenance must be a Report, a dict or a path, got {type(provenance).__name__}")
    ma, own_a = _as_model(a)
    try:
        mb, own_b = _as_model(b)
        try:
            return json.loads(_take_json(lambda out: lib.ofg_diff_json(ma._handle, mb._handle, prov, out)))
        finally:
            if own_b:
                mb.close()
    finally:
        if own_a:
            ma.close()


class _InputFiles:
    """verify.input.NAME takes .pb files: arrays given directly are written to a temporary folder."""

    def __init__(self, inputs: Optional[Mapping[str, Any]]) -> None:
        self.paths: Dict[str, str] = {}
        self._dir: Optional[tempfile.TemporaryDirectory] = None  # type: ignore[type-arg]
        for name, v in (inputs or {}).items():
            if isinstance(v, (str, os.PathLike)):
                self.paths[name] = os.fspath(v)
                continue
            if self._dir is None:
                self._dir = tempfile.TemporaryDirectory(prefix="onnxforge-")
            path = os.path.join(self._dir.name, f"input_{len(self.paths)}.pb")
            with open(path, "wb") as f:
                f.write(save_tensor_pb(v, name))
            self.paths[name] = path

    def __enter__(self) -> "_InputFiles":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._dir is not None:
            self._dir.cleanup()


def verify(reference: Any, candidate: Any, samples: Optional[int] = None, seed: Optional[int] = None,
           test_data: Optional[PathLike] = None, inputs: Optional[Mapping[str, Any]] = None,
           dims: Optional[Mapping[str, int]] = None, input_shapes: Union[None, str, Mapping[str, Sequence[int]]] = None,
           atol: Optional[float] = None, rtol: Optional[float] = None, int_high: Optional[int] = None,
           max_tries: Optional[int] = None, progress: Optional[ProgressCallback] = None,
           log: Optional[LogCallback] = None, threads: Optional[int] = None) -> VerifyReport:
    """Runs `reference` and `candidate` (Models, or anything :func:`load` takes) on the same
    inputs and compares every output of the reference (|a - e| <= atol + rtol * |e|).

    Inputs: real data first (``test_data``: a test_data_set_N folder or a folder of them;
    ``inputs``: input name -> .pb path or numpy array), else seeded inputs the reference accepts
    (``samples`` sets from ``seed``; symbolic dims from ``dims`` / ``input_shapes`` or derived
    from the graph). Raises :class:`NoValidInputsError` when no input set is accepted. A mismatch
    does not raise: check ``report.passed``. ``threads``: threads for the ops (option
    ``run.threads``; default: the machine's cores); with two or more the two models run at once.
    """
    ref, own_ref = _as_model(reference)
    cand, own_cand = _as_model(candidate)
    try:
        with _InputFiles(inputs) as files:
            values = _verify_values(samples, seed, atol, rtol, dims, input_shapes, test_data, files.paths, int_high,
                                    max_tries)
            values["run.threads"] = threads
            with _Options(values, progress, log) as o:
                vh = c_void_p()
                o.check(lib.ofg_verify(ref._handle, cand._handle, o.handle, byref(vh)))
                try:
                    return VerifyReport._from_handle(vh)
                finally:
                    lib.ofg_report_free(vh)
    finally:
        if own_ref:
            ref.close()
        if own_cand:
            cand.close()
