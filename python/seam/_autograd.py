"""Gradient mode switches (torch.no_grad and friends)."""

import contextlib
import functools

from . import _C

is_grad_enabled = _C.is_grad_enabled


class set_grad_enabled(contextlib.ContextDecorator):
    """Turns the recording of gradients' dependencies on or off (for this thread), now
    and, used as a context manager, until the block ends."""

    def __init__(self, mode):
        self._prev = _C.is_grad_enabled()
        self._mode = bool(mode)
        _C.set_grad_enabled(self._mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C.set_grad_enabled(self._prev)
        return False


class no_grad(contextlib.ContextDecorator):
    """Operations inside record no dependency on leaves that require grad: their results
    have requires_grad=False (for evaluation and for updates made by hand)."""

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C.set_grad_enabled(False)
        return self

    def __exit__(self, *exc):
        _C.set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with no_grad():
                return fn(*args, **kwargs)

        return wrapped


class enable_grad(no_grad):
    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C.set_grad_enabled(True)
        return self

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with enable_grad():
                return fn(*args, **kwargs)

        return wrapped
