"""seam's exceptions: one class per status code of the C++ API (docs/python.md, "Errors").

Each class derives from SeamError and from the built-in exception a Python user would
expect, so ``except ValueError`` catches an invalid argument and ``except seam.SeamError``
catches every error seam raises. ``code`` is the status code's name (absl's spelling).
"""


class SeamError(Exception):
    """An error reported by seam; ``code`` names the status code."""

    code = "UNKNOWN"


class CancelledError(SeamError, RuntimeError):
    code = "CANCELLED"


class UnknownError(SeamError, RuntimeError):
    code = "UNKNOWN"


class InvalidArgumentError(SeamError, ValueError):
    code = "INVALID_ARGUMENT"


class DeadlineExceededError(SeamError, TimeoutError):
    code = "DEADLINE_EXCEEDED"


class NotFoundError(SeamError, FileNotFoundError):
    code = "NOT_FOUND"


class AlreadyExistsError(SeamError, FileExistsError):
    code = "ALREADY_EXISTS"


class PermissionDeniedError(SeamError, PermissionError):
    code = "PERMISSION_DENIED"


class ResourceExhaustedError(SeamError, MemoryError):
    code = "RESOURCE_EXHAUSTED"


class FailedPreconditionError(SeamError, RuntimeError):
    code = "FAILED_PRECONDITION"


class AbortedError(SeamError, RuntimeError):
    code = "ABORTED"


class OutOfRangeError(SeamError, IndexError):
    code = "OUT_OF_RANGE"


class UnimplementedError(SeamError, NotImplementedError):
    code = "UNIMPLEMENTED"


class InternalError(SeamError, RuntimeError):
    code = "INTERNAL"


class UnavailableError(SeamError, ConnectionError):
    code = "UNAVAILABLE"


class DataLossError(SeamError, ValueError):
    code = "DATA_LOSS"


class UnauthenticatedError(SeamError, PermissionError):
    code = "UNAUTHENTICATED"


# Status code number -> class (absl's numbering, seam::ErrorCode).
BY_CODE = {
    1: CancelledError,
    2: UnknownError,
    3: InvalidArgumentError,
    4: DeadlineExceededError,
    5: NotFoundError,
    6: AlreadyExistsError,
    7: PermissionDeniedError,
    8: ResourceExhaustedError,
    9: FailedPreconditionError,
    10: AbortedError,
    11: OutOfRangeError,
    12: UnimplementedError,
    13: InternalError,
    14: UnavailableError,
    15: DataLossError,
    16: UnauthenticatedError,
}


def _make(code, name, message):
    """Called by the extension: the exception for a seam::Error."""
    cls = BY_CODE.get(code, SeamError)
    exc = cls(message)
    if cls is SeamError:
        exc.code = name
    return exc
