"""Finds and loads ``libonnxforge.so`` and declares the C functions the package calls.

Search order: the file named by the ``ONNXFORGE_LIBRARY`` environment variable (only that one
when set); a library beside this package (``onnxforge/libonnxforge.so*``); the library directory
recorded by ``cmake --install`` (``_install_paths.py``); then the dynamic loader's own search
(``LD_LIBRARY_PATH``, the system library folders).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_double, c_int32, c_int64, c_size_t, c_uint32,
                    c_uint64, c_void_p)
from pathlib import Path
from typing import List, Optional

# Oldest library this package works with (it calls ofg_model_clone and the callbacks).
REQUIRED_MAJOR = 0
REQUIRED_NUMBER = 100  # 0.1.0


class ValueDesc(Structure):
    _fields_ = [("struct_size", c_uint32), ("name", c_char_p), ("elem_type", c_int32), ("rank", c_int32),
                ("kind", c_int32)]


class PassEntry(Structure):
    _fields_ = [("struct_size", c_uint32), ("name", c_char_p), ("accuracy_class", c_int32), ("iteration", c_int32),
                ("milliseconds", c_double), ("changes", c_int64), ("nodes_removed", c_int64),
                ("nodes_added", c_int64), ("nodes_before", c_int64), ("nodes_after", c_int64),
                ("bytes_before", c_uint64), ("bytes_after", c_uint64), ("rolled_back", c_int32),
                ("note", c_char_p)]


class Diff(Structure):
    _fields_ = [("struct_size", c_uint32), ("name", c_char_p), ("max_abs", c_double), ("max_rel", c_double),
                ("mismatches", c_uint64), ("worst_index", c_uint64), ("elements", c_uint64),
                ("problem", c_char_p), ("passed", c_int32), ("first_mismatch", c_uint64)]


class InputInfo(Structure):
    _fields_ = [("struct_size", c_uint32), ("name", c_char_p), ("elem_type", c_int32), ("rank", c_size_t),
                ("dims", POINTER(c_int64)), ("source", c_char_p)]


PROGRESS_FN = CFUNCTYPE(c_int32, c_void_p, c_uint32, c_uint32)
LOG_FN = CFUNCTYPE(None, c_void_p, c_int32, c_char_p)

_P = c_void_p  # every handle travels as an opaque pointer
_PP = POINTER(c_void_p)
_status = c_int32

# name: (restype, argtypes)
_SIGNATURES = {
    "ofg_version_number": (c_uint32, []),
    "ofg_version_string": (c_char_p, []),
    "ofg_status_string": (c_char_p, [c_int32]),
    "ofg_last_error": (c_char_p, []),
    "ofg_options_create": (_status, [_PP]),
    "ofg_options_free": (None, [_P]),
    "ofg_options_set": (_status, [_P, c_char_p, c_char_p]),
    "ofg_options_set_progress": (_status, [_P, PROGRESS_FN, c_void_p]),
    "ofg_options_set_log": (_status, [_P, LOG_FN, c_void_p]),
    "ofg_load": (_status, [c_char_p, _P, _PP]),
    "ofg_load_from_memory": (_status, [c_void_p, c_size_t, _P, _PP]),
    "ofg_model_free": (None, [_P]),
    "ofg_model_clone": (_status, [_P, _PP]),
    "ofg_model_create_demo": (_status, [_PP]),
    "ofg_save": (_status, [_P, c_char_p, _P]),
    "ofg_save_to_memory": (_status, [_P, _P, _PP, POINTER(c_size_t)]),
    "ofg_buffer_free": (None, [c_void_p]),
    "ofg_model_ir_version": (_status, [_P, POINTER(c_int64)]),
    "ofg_model_producer": (_status, [_P, POINTER(c_char_p), POINTER(c_char_p)]),
    "ofg_model_opset_count": (_status, [_P, POINTER(c_size_t)]),
    "ofg_model_opset": (_status, [_P, c_size_t, POINTER(c_char_p), POINTER(c_int64)]),
    "ofg_elem_type_name": (c_char_p, [c_int32]),
    "ofg_model_io_count": (_status, [_P, c_int32, POINTER(c_size_t)]),
    "ofg_model_io": (_status, [_P, c_int32, c_size_t, POINTER(ValueDesc)]),
    "ofg_model_io_dim": (_status, [_P, c_int32, c_size_t, c_size_t, POINTER(c_int64), POINTER(c_char_p)]),
    "ofg_model_node_count": (_status, [_P, c_int32, POINTER(c_size_t)]),
    "ofg_model_op_histogram_count": (_status, [_P, POINTER(c_size_t)]),
    "ofg_model_op_histogram_entry": (_status, [_P, c_size_t, POINTER(c_char_p), POINTER(c_char_p),
                                              POINTER(c_size_t)]),
    "ofg_model_initializer_stats": (_status, [_P, POINTER(c_size_t), POINTER(c_uint64)]),
    "ofg_pass_count": (c_size_t, []),
    "ofg_pass_name": (c_char_p, [c_size_t]),
    "ofg_pass_description": (c_char_p, [c_size_t]),
    "ofg_pass_class": (c_int32, [c_size_t]),
    "ofg_pass_in_default_pipeline": (c_int32, [c_size_t]),
    "ofg_pass_report_free": (None, [_P]),
    "ofg_pass_report_count": (_status, [_P, POINTER(c_size_t)]),
    "ofg_pass_report_entry": (_status, [_P, c_size_t, POINTER(PassEntry)]),
    "ofg_pass_report_totals": (_status, [_P, POINTER(c_int64), POINTER(c_int64), POINTER(c_uint64),
                                        POINTER(c_uint64), POINTER(c_double), POINTER(c_int32)]),
    "ofg_pass_report_json": (c_char_p, [_P]),
    "ofg_run_pass": (_status, [_P, c_char_p, _P, _PP]),
    "ofg_optimize": (_status, [_P, _P, _PP]),
    "ofg_convert_float": (_status, [_P, _P, _PP]),  # precision conversion
    # ---- opset conversion (issue 22, part 2)
    "ofg_convert_opset": (_status, [_P, c_int64, _P, _PP]),
    # ---- end opset conversion
    # ---- target profiles (issue 24, part 1)
    "ofg_targets_json": (_status, [POINTER(c_char_p)]),
    "ofg_check_target": (_status, [_P, c_char_p, POINTER(c_char_p)]),
    "ofg_legalize_for_target": (_status, [_P, c_char_p, _P, POINTER(c_char_p)]),
    # ---- end target profiles
    "ofg_tensor_create": (_status, [c_int32, POINTER(c_int64), c_size_t, c_void_p, c_size_t, _PP]),
    "ofg_tensor_free": (None, [_P]),
    "ofg_tensor_elem_type": (c_int32, [_P]),
    "ofg_tensor_rank": (c_size_t, [_P]),
    "ofg_tensor_dims": (POINTER(c_int64), [_P]),
    "ofg_tensor_data": (c_void_p, [_P]),
    "ofg_tensor_nbytes": (c_size_t, [_P]),
    "ofg_tensor_name": (c_char_p, [_P]),
    "ofg_tensor_load_pb": (_status, [c_void_p, c_size_t, _PP]),
    "ofg_tensor_save_pb": (_status, [_P, c_char_p, _PP, POINTER(c_size_t)]),
    "ofg_verify": (_status, [_P, _P, _P, _PP]),
    "ofg_report_free": (None, [_P]),
    "ofg_report_passed": (_status, [_P, POINTER(c_int32)]),
    "ofg_report_output_count": (_status, [_P, POINTER(c_size_t)]),
    "ofg_report_output": (_status, [_P, c_size_t, POINTER(Diff)]),
    "ofg_report_input_count": (_status, [_P, POINTER(c_size_t)]),
    "ofg_report_input": (_status, [_P, c_size_t, POINTER(InputInfo)]),
    "ofg_report_note": (c_char_p, [_P]),
    "ofg_report_json": (c_char_p, [_P]),
    "ofg_value_from_tensor": (_status, [_P, _PP]),
    "ofg_value_create_sequence": (_status, [c_int32, _PP, c_size_t, _PP]),
    "ofg_value_create_optional": (_status, [_P, _PP]),
    "ofg_value_free": (None, [_P]),
    "ofg_values_free": (None, [_PP, c_size_t]),
    "ofg_value_kind": (c_int32, [_P]),
    "ofg_value_name": (c_char_p, [_P]),
    "ofg_value_tensor": (_status, [_P, _PP]),
    "ofg_value_sequence_length": (_status, [_P, POINTER(c_size_t)]),
    "ofg_value_sequence_elem_type": (_status, [_P, POINTER(c_int32)]),
    "ofg_value_sequence_at": (_status, [_P, c_size_t, _PP]),
    "ofg_value_optional_has_value": (_status, [_P, POINTER(c_int32)]),
    "ofg_value_optional_element": (_status, [_P, _PP]),
    "ofg_run_values": (_status, [_P, _P, c_size_t, POINTER(c_char_p), _PP, POINTER(c_size_t),
                                 POINTER(_PP)]),
    "ofg_diff_json": (_status, [_P, _P, c_char_p, POINTER(c_char_p)]),  # graph diff (issue 24, part 4)
}


def _candidates() -> List[str]:
    env = os.environ.get("ONNXFORGE_LIBRARY")
    if env:
        return [env]
    here = Path(__file__).resolve().parent
    out = [str(here / "libonnxforge.so.0"), str(here / "libonnxforge.so")]
    try:
        from . import _install_paths  # written by cmake --install

        libdir = (here / _install_paths.LIBDIR_FROM_PACKAGE).resolve()
        out += [str(libdir / "libonnxforge.so.0"), str(libdir / "libonnxforge.so")]
    except ImportError:
        pass
    out += ["libonnxforge.so.0", "libonnxforge.so"]
    found = ctypes.util.find_library("onnxforge")
    if found:
        out.append(found)
    return out


def _load() -> ctypes.CDLL:
    tried = []
    for c in _candidates():
        if os.sep in c and not os.path.exists(c):
            tried.append(c + " (no such file)")
            continue
        try:
            lib = ctypes.CDLL(c)
        except OSError as e:
            tried.append(f"{c} ({e})")
            continue
        missing = [name for name in _SIGNATURES if not hasattr(lib, name)]
        if missing:
            tried.append(f"{c} (too old: lacks {', '.join(missing[:3])})")
            continue
        for name, (res, args) in _SIGNATURES.items():
            fn = getattr(lib, name)
            fn.restype = res
            fn.argtypes = args
        number = lib.ofg_version_number()
        if number // 10000 != REQUIRED_MAJOR or number < REQUIRED_NUMBER:
            tried.append(f"{c} (version {lib.ofg_version_string().decode()} is not ABI-compatible)")
            continue
        lib._onnxforge_path = c  # type: ignore[attr-defined]
        return lib
    raise ImportError(
        "onnxforge: cannot load libonnxforge.so; set ONNXFORGE_LIBRARY to its path, install the package "
        "with the library (cmake --install), or add its folder to LD_LIBRARY_PATH. Tried: " + "; ".join(tried))


lib: ctypes.CDLL = _load()
library_path: Optional[str] = getattr(lib, "_onnxforge_path", None)
