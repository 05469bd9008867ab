"""Exceptions: one class per ``ofg_status`` of the C library, all derived from :class:`Error`."""

from __future__ import annotations

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


class InvalidArgumentError(Error, ValueError):
    """OFG_ERR_INVALID_ARGUMENT: a bad argument, an unknown option, pass or input name."""

    status = 1


class InputOutputError(Error):
    """OFG_ERR_IO: a file could not be opened, read, written or renamed."""

    status = 2


class ParseError(Error):
    """OFG_ERR_PARSE: the bytes are not a well-formed ONNX protobuf."""

    status = 3


class InvalidModelError(Error):
    """OFG_ERR_INVALID_MODEL: well-formed, but not a valid model (undefined value, cycle...)."""

    status = 4


class UnsupportedError(Error):
    """OFG_ERR_UNSUPPORTED: valid, but uses something the library does not implement."""

    status = 5


class NoMemoryError(Error, MemoryError):
    """OFG_ERR_NO_MEMORY: the library ran out of memory."""

    status = 6


class LimitError(Error):
    """OFG_ERR_LIMIT: a size or nesting limit of the library was exceeded."""

    status = 7


class VerifyFailedError(Error):
    """OFG_ERR_VERIFY_FAILED: outputs differ beyond tolerance."""

    status = 8


class CancelledError(Error):
    """OFG_ERR_CANCELLED: a progress callback asked to stop (or raised an exception)."""

    status = 9


class InternalError(Error):
    """OFG_ERR_INTERNAL: a bug in the library; please report it with the message."""

    status = 10


class NoValidInputsError(Error):
    """OFG_ERR_NO_VALID_INPUTS: verification could not build inputs the reference model accepts.

    Give input shapes (``dims=``, ``input_shapes=``) or real data (``test_data=``, ``inputs=``).
    """

    status = 11


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
