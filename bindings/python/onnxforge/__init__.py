"""onnxforge: load, optimize, verify (by execution) and save ONNX models.

A thin ctypes layer over the C library ``libonnxforge.so`` (no compiled extension)::

    import onnxforge
    model = onnxforge.load("model.onnx")
    report = model.optimize(verify=True)
    print(report.summary())
    model.save("model.opt.onnx")

The library is looked up in ``ONNXFORGE_LIBRARY``, beside the package, in the library folder of
the prefix the package was installed into by ``cmake --install``, then on the loader path.
Every failure raises a subclass of :class:`onnxforge.Error` carrying the library's status and
message.
"""

from ._errors import (CancelledError, Error, InputOutputError, InternalError, InvalidArgumentError, InvalidModelError,
                      LimitError, NoMemoryError, NoValidInputsError, ParseError, UnsupportedError, VerifyFailedError)
from ._core import (LOG_INFO, LOG_WARNING, Model, OutputDiff, PassInfo, PassRun, Report, TargetCheck, TargetFinding,
                    TargetLegalisation,
                    TargetInfo, ValueInfo, VerifyInput, VerifyReport, demo, elem_type_name, load, load_tensor_pb, passes,
                    save_tensor_pb, status_string, targets, verify, version)
from ._lib import library_path
from ._simplify import simplify
from ._core import diff  # the graph diff (docs/diff.md)

# The library's version (include_c/onnxforge.h), the one the wheel's metadata also carries.
__version__ = version()

__all__ = [
    "diff",
    "CancelledError", "Error", "InputOutputError", "InternalError", "InvalidArgumentError", "InvalidModelError",
    "LimitError", "NoMemoryError", "NoValidInputsError", "ParseError", "UnsupportedError", "VerifyFailedError",
    "LOG_INFO", "LOG_WARNING", "Model", "OutputDiff", "PassInfo", "PassRun", "Report", "ValueInfo", "VerifyInput",
    "VerifyReport", "demo", "elem_type_name", "load", "load_tensor_pb", "passes", "save_tensor_pb", "status_string",
    "verify", "version", "library_path", "simplify", "TargetCheck", "TargetFinding", "TargetLegalisation", "TargetInfo", "targets",
]
