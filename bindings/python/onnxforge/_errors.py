"""Exceptions: one class per ``ofg_status`` of the C library, all derived from :class:`Error`."""

from __future__ import annotations

import errno
import os
import re
from typing import Dict, Type


class Error(Exception):
    """A failed call into the onnxforge library.

    Attributes:
        status: the ``ofg_status`` number the library returned.
        status_name: the library's text for that status (``ofg_status_string``).
        message: the library's description of what went wrong (``ofg_last_error``).
    """

    status: int = -1

    def __init__(self, message: str, status: int = -1, status_name: str = "") -> None:
        super().__init__(message)
        if status >= 0:
            self.status = status
        self.status_name = status_name
        self.message = message

    def __str__(self) -> str:
        return self.message or self.status_name


def _status_error(name: str, status: int, doc: str, *bases: type) -> Type[Error]:
    """The exception class of one ``ofg_status``: an :class:`Error` (and the built-in `bases`)."""
    return type(name, (Error, *bases), {"__doc__": doc, "status": status, "__module__": __name__})


# One class per status, numbered as in onnxforge.h; ValueError and MemoryError are kept as bases
# so that callers catching the built-in exceptions still catch these.
InvalidArgumentError = _status_error(
    "InvalidArgumentError", 1, "OFG_ERR_INVALID_ARGUMENT: a bad argument, an unknown option, pass or input name.",
    ValueError)
class InputOutputError(Error, OSError):
    """OFG_ERR_IO: a file could not be opened, read, written or renamed.

    Also an :class:`OSError`: ``errno`` and ``filename`` are set when the library's message names
    them (the system's text for an error number, the first quoted path)."""

    status = 2

    def __new__(cls, message: str = "", status: int = -1, status_name: str = "") -> "InputOutputError":
        # OSError's constructor reads two or more arguments as (errno, strerror, filename).
        return OSError.__new__(cls, message)

    def __init__(self, message: str = "", status: int = -1, status_name: str = "") -> None:
        Error.__init__(self, message, status, status_name)
        quoted = re.search(r"'([^']+)'", message)
        self.filename = quoted.group(1) if quoted else None
        self.errno = next((code for code in sorted(errno.errorcode) if os.strerror(code) in message), None)
        self.strerror = os.strerror(self.errno) if self.errno else message
ParseError = _status_error("ParseError", 3, "OFG_ERR_PARSE: the bytes are not a well-formed ONNX protobuf.")
InvalidModelError = _status_error(
    "InvalidModelError", 4, "OFG_ERR_INVALID_MODEL: well-formed, but not a valid model (undefined value, cycle...).")
UnsupportedError = _status_error(
    "UnsupportedError", 5, "OFG_ERR_UNSUPPORTED: valid, but uses something the library does not implement.")
NoMemoryError = _status_error("NoMemoryError", 6, "OFG_ERR_NO_MEMORY: the library ran out of memory.", MemoryError)
LimitError = _status_error("LimitError", 7, "OFG_ERR_LIMIT: a size or nesting limit of the library was exceeded.")
VerifyFailedError = _status_error("VerifyFailedError", 8, "OFG_ERR_VERIFY_FAILED: outputs differ beyond tolerance.")
CancelledError = _status_error(
    "CancelledError", 9, "OFG_ERR_CANCELLED: a progress callback asked to stop (or raised an exception).")
InternalError = _status_error(
    "InternalError", 10, "OFG_ERR_INTERNAL: a bug in the library; please report it with the message.")
NoValidInputsError = _status_error(
    "NoValidInputsError", 11,
    "OFG_ERR_NO_VALID_INPUTS: verification could not build inputs the reference model accepts.\n\n"
    "Give input shapes (``dims=``, ``input_shapes=``) or real data (``test_data=``, ``inputs=``).")

ERRORS_BY_STATUS: Dict[int, Type[Error]] = {
    cls.status: cls
    for cls in (
        InvalidArgumentError,
        InputOutputError,
        ParseError,
        InvalidModelError,
        UnsupportedError,
        NoMemoryError,
        LimitError,
        VerifyFailedError,
        CancelledError,
        InternalError,
        NoValidInputsError,
    )
}
