"""seam from Python: lazy tensors, autograd, layers and optimizers over seam's C++ runtime.

Importing seam does what importing torch_xla does to the environment before the runtime
loads: PJRT_DYNAMIC_PLUGINS is turned on unless set, and when PJRT_DEVICE is unset the CPU
is chosen, with the warning "Defaulting to PJRT_DEVICE=CPU" (docs/python.md).
"""

import logging as _logging
import os as _os


def _configure_environment():
    _os.environ.setdefault("PJRT_DYNAMIC_PLUGINS", "1")
    if "PJRT_DEVICE" in _os.environ:
        return
    # A remote client's devices are chosen by its server; PJRT_SELECT_DEFAULT_DEVICE=0
    # turns the default off, as in the reference.
    if _os.environ.get("SEAM_CLIENT") == "remote":
        return
    if _os.environ.get("PJRT_SELECT_DEFAULT_DEVICE", "1") == "0":
        return
    _logging.getLogger("seam").warning("Defaulting to PJRT_DEVICE=CPU")
    _os.environ["PJRT_DEVICE"] = "CPU"


_configure_environment()

from . import _C  # noqa: E402  (after the environment is set)
from ._errors import (  # noqa: E402,F401
    AbortedError,
    AlreadyExistsError,
    CancelledError,
    DataLossError,
    DeadlineExceededError,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    OutOfRangeError,
    PermissionDeniedError,
    ResourceExhaustedError,
    SeamError,
    UnauthenticatedError,
    UnavailableError,
    UnimplementedError,
    UnknownError,
)
from ._tensor import (  # noqa: E402,F401
    Tensor,
    arange,
    as_tensor,
    cat,
    clamp,
    dtype,
    eye,
    from_numpy,
    full,
    full_like,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randn,
    randn_like,
    stack,
    tensor,
    where,
    zeros,
    zeros_like,
)
from ._autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: E402,F401
from ._runtime import (  # noqa: E402,F401
    DataParallel,
    ReduceOp,
    all_reduce,
    compile,
    from_dlpack,
    is_eager,
    load_file,
    local_device_count,
    mark_step,
    memory_stats,
    optimizer_step,
    pending_ir_text,
    process_count,
    process_index,
    save_file,
    set_eager,
    sync,
    wait_device_ops,
)
from . import autograd, data, metrics, nn, optim, trace  # noqa: E402,F401

__version__ = "0.1.0"

concat = cat


def _free_function(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = name
    fn.__doc__ = f"seam.{name}(t, ...) is t.{name}(...)."
    return fn


for _name in (
    "exp", "log", "tanh", "sigmoid", "relu", "sqrt", "rsqrt", "abs", "sign", "log1p", "floor",
    "ceil", "erf", "neg", "softmax", "log_softmax", "cumsum", "sum", "mean", "prod", "amax",
    "amin", "max", "min", "argmax", "argmin", "var", "std", "reshape", "transpose", "permute",
    "flatten", "squeeze", "unsqueeze", "matmul", "sort", "topk", "maximum", "minimum", "fmod",
    "logical_not", "square", "t",
):
    globals()[_name] = _free_function(_name)
negative = globals()["neg"]

# dtypes under PyTorch's names, last: `bool`, `float`, `int` shadow the builtins in this
# module's namespace only (seam.bool is a dtype, as torch.bool).
globals().update(
    float32=dtype.float32, float=dtype.float32, float64=dtype.float64, double=dtype.float64,
    int32=dtype.int32, int=dtype.int32, int64=dtype.int64, long=dtype.int64,
    bfloat16=dtype.bfloat16, bool=dtype.bool,
)
