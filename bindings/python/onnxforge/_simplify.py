"""onnxforge.simplify: one call from a model to its optimized, verified form, in the kind given."""

from __future__ import annotations

import os
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from . import _errors
from ._core import Model, load

PathLike = Union[str, "os.PathLike[str]"]


def _names(param: str, value: Optional[Iterable[str]]) -> Optional[list]:
    if value is None:
        return None
    if isinstance(value, (str, bytes)):
        raise TypeError(f"onnxforge.simplify: {param} must be a list of pass names, not a single string "
                        f"(write {param}=[{value!r}])")
    names = list(value)
    for n in names:
        if not isinstance(n, str):
            raise TypeError(f"onnxforge.simplify: {param} must hold pass names (str), got {type(n).__name__}")
    return names


def _check_count(param: str, value: Optional[int], minimum: int) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"onnxforge.simplify: {param} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"onnxforge.simplify: {param} must be >= {minimum}, got {value}")


def simplify(model: Any, output: Optional[PathLike] = None, *, verify: bool = True,
             passes: Optional[Iterable[str]] = None, skip: Optional[Iterable[str]] = None,
             input_shapes: Optional[Mapping[str, Sequence[int]]] = None, samples: Optional[int] = None,
             seed: Optional[int] = None, atol: Optional[float] = None, rtol: Optional[float] = None,
             dims: Optional[Mapping[str, int]] = None, test_data: Optional[PathLike] = None,
             inputs: Optional[Mapping[str, Any]] = None, threads: Optional[int] = None,
             external_data: Optional[bool] = None, target_opset: Optional[int] = None,
             to_float16: bool = False, to_bfloat16: bool = False) -> Any:
    """Optimizes a model with the default pipeline and, unless ``verify=False``, proves the result
    by running the original and the optimized model on the same inputs.

    The result comes back in the kind given:

    * a path (``str`` or ``os.PathLike``): the optimized model is saved to ``output`` (required:
      nothing is written to a file you did not name; it may be the input path) and ``output`` is
      returned. ``external_data`` as for :meth:`Model.save` (default: the input's layout).
    * ``bytes``, ``bytearray`` or ``memoryview``: the optimized model's bytes.
    * an ``onnx.ModelProto`` (anything with ``SerializeToString``): a new ModelProto of the same
      class; the one given is not changed.

    Verification (``samples``, ``seed``, ``atol``, ``rtol``, ``dims``, ``test_data``, ``inputs``)
    works as in :meth:`Model.optimize`. When it finds outputs that differ,
    :class:`VerifyFailedError` is raised with the comparison and nothing is saved.
    ``passes``/``skip`` name passes (:func:`onnxforge.passes`), ``input_shapes`` fixes input
    shapes, ``threads`` sets the threads of the ops run.
    ``target_opset`` converts the default ONNX domain to that opset (:meth:`Model.convert_opset`,
    verified by execution unless ``verify=False``): before the passes when going up (so the
    fusions of the newer opset apply), after them when going down.

    ``to_float16``/``to_bfloat16`` convert the optimized model afterwards with
    :meth:`Model.convert_float` (verified against the float32 result; inputs and outputs stay
    float32), raising :class:`VerifyFailedError` with nothing saved when it does not verify.

    Raises TypeError for an argument of the wrong type, ValueError for a bad value, and the
    library's errors (:class:`onnxforge.Error` subclasses) for a model it cannot load or optimize.
    """
    if not isinstance(verify, bool):
        raise TypeError(f"onnxforge.simplify: verify must be True or False, got {type(verify).__name__}")
    passes_list, skip_list = _names("passes", passes), _names("skip", skip)
    _check_count("threads", threads, 0)
    _check_count("samples", samples, 1)
    if input_shapes is not None and not isinstance(input_shapes, Mapping):
        raise TypeError("onnxforge.simplify: input_shapes must map input names to shapes, "
                        f"got {type(input_shapes).__name__}")

    kind: str
    if isinstance(model, (str, os.PathLike)):
        kind = "path"
        if output is None:
            raise TypeError("onnxforge.simplify: a model given as a path needs output=PATH "
                            "(where to save the optimized model; it may be the same path)")
        if not isinstance(output, (str, os.PathLike)):
            raise TypeError(f"onnxforge.simplify: output must be a path, got {type(output).__name__}")
    elif isinstance(model, (bytes, bytearray, memoryview)):
        kind = "bytes"
    elif hasattr(model, "SerializeToString") and hasattr(model, "ParseFromString"):
        kind = "proto"
    else:
        raise TypeError("onnxforge.simplify: model must be a path, bytes or an onnx.ModelProto, "
                        f"got {type(model).__name__}")
    if kind != "path" and output is not None:
        raise TypeError("onnxforge.simplify: output= is only for a model given as a path "
                        f"(this one is {type(model).__name__}: the result comes back as the same kind)")
    if external_data is not None and kind != "path":
        raise TypeError("onnxforge.simplify: external_data= is only for a model saved to a path")

    if target_opset is not None and (not isinstance(target_opset, int) or isinstance(target_opset, bool)):
        raise TypeError(f"onnxforge.simplify: target_opset must be an int, got {type(target_opset).__name__}")

    with load(model) as m:
        # ---- opset conversion: up before the passes, down after them
        opset_up = target_opset is not None and target_opset > m.opsets.get("", m.opsets.get("ai.onnx", 0))
        if opset_up:
            m.convert_opset(target_opset, verify=verify, threads=threads)
        report = m.optimize(passes=passes_list, skip=skip_list, input_shapes=input_shapes, verify=verify,
                            samples=samples, seed=seed, atol=atol, rtol=rtol, dims=dims, test_data=test_data,
                            inputs=inputs, threads=threads)
        if report.verify is not None and not report.verify.passed:
            raise _errors.VerifyFailedError(
                "onnxforge.simplify: the optimized model's outputs differ from the original's; nothing saved\n" +
                report.verify.summary(), 8, "verification failed")
        if target_opset is not None and not opset_up:
            m.convert_opset(target_opset, verify=verify, threads=threads)
        # --- precision conversion (after any opset conversion)
        if to_float16 and to_bfloat16:
            raise ValueError("onnxforge.simplify: give one of to_float16, to_bfloat16")
        if to_float16 or to_bfloat16:
            m.convert_float("bfloat16" if to_bfloat16 else "float16", test_data=test_data)
        # --- end precision conversion
        return _result(m, model, kind, output, external_data)


def _result(m: Model, given: Any, kind: str, output: Optional[PathLike], external_data: Optional[bool]) -> Any:
    if kind == "path":
        if external_data is None:
            m.save(output)  # the library keeps the input's layout (and never writes over 2 GiB inline)
        else:
            m.save(output, external_data=external_data)
        return output
    data = m.to_bytes()
    if kind == "bytes":
        return data
    proto = type(given)()
    proto.ParseFromString(data)
    return proto
