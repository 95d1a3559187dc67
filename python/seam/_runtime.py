"""The step barrier, compiled steps, files and the process's devices."""

import functools

from . import _C
from ._errors import InvalidArgumentError

from_dlpack = _C.from_dlpack
set_eager = _C.set_eager
is_eager = _C.is_eager
process_index = _C.process_index
process_count = _C.process_count
local_device_count = _C.local_device_count
memory_stats = _C.memory_stats
DataParallel = _C.DataParallel
ReduceOp = _C.ReduceOp
all_reduce = _C.all_reduce


def optimizer_step(optimizer, data_parallel=None):
    """torch_xla's xm.optimizer_step: gradients averaged over the replicas, then a step."""
    return optimizer.step(data_parallel=data_parallel)


# sync(): compiles and runs every live tensor's pending operations as one program (torch_xla's
# xm.mark_step()), the GIL released while it runs. The extension's function itself (its
# docstring says the same): a Python wrapper would add a frame to every step.
sync = _C.sync


mark_step = sync


def wait_device_ops():
    """Blocks until every run launched so far has finished (xm.wait_device_ops())."""
    _C.wait_device_ops()


def pending_ir_text(*tensors):
    """The IR text of the program a sync of `tensors` would compile now."""
    return _C.pending_ir_text(list(tensors))


def save_file(tensors, filename, metadata=None):
    """safetensors.torch.save_file: `tensors` (name -> tensor) to `filename`, atomically."""
    _C.save_file(str(filename), dict(tensors), dict(metadata or {}))


def load_file(filename, with_metadata=False):
    """safetensors.torch.load_file: name -> tensor (and the header's metadata when asked)."""
    tensors, metadata = _C.load_file(str(filename))
    return (tensors, metadata) if with_metadata else tensors


class CompiledFunction:
    """A step function traced once and then replayed from its cached program (seam::compile,
    docs/frontend.md "Compiled steps"). Arguments must be tensors; the function returns a
    tensor, a tuple or list of tensors, or None."""

    def __init__(self, fn):
        self._fn = fn
        self._kind = None
        functools.update_wrapper(self, fn)

        def traced(*args):
            out = fn(*args)
            self._kind = type(out)
            return out

        self._step = _C.CompiledStep(traced)
        self._run = self._step.__call__  # bound once: the call runs every step

    def __call__(self, *args):
        try:
            outs = self._run(args)
        except TypeError:
            for a in args:  # the extension refuses anything but tensors: say which
                if not isinstance(a, _C.Tensor):
                    raise InvalidArgumentError(
                        f"compile: the arguments of a compiled function must be tensors, got "
                        f"{type(a).__name__}"
                    ) from None
            raise
        kind = self._kind
        if kind is _C.Tensor:
            return outs[0]
        if kind is None or kind is type(None):
            return None
        if issubclass(kind, _C.Tensor):
            return outs[0]
        return kind(outs) if kind in (list, tuple) else tuple(outs)

    traced_calls = property(lambda self: self._step.traced_calls)
    replayed_calls = property(lambda self: self._step.replayed_calls)
    fallbacks = property(lambda self: self._step.fallbacks)
    never_replayed = property(lambda self: self._step.never_replayed)
    last_reason = property(lambda self: self._step.last_reason)


def compile(fn=None):
    """seam.compile(fn) or @seam.compile: see CompiledFunction."""
    if fn is None:
        return compile
    return CompiledFunction(fn)
