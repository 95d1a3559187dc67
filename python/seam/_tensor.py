"""The Tensor's Python half: PyTorch's calling conventions (varargs shapes, dim=, keepdim=),
indexing, host conversions and the creation functions. The operations themselves are the
extension's (seam._C), which wraps the C++ API.
"""

import builtins
import collections
import math

import numpy as np

from . import _C, _random
from ._errors import InvalidArgumentError, OutOfRangeError

Tensor = _C.Tensor
dtype = _C.dtype

_NUMPY_OF = {
    dtype.float32: np.float32,
    dtype.float64: np.float64,
    dtype.int32: np.int32,
    dtype.int64: np.int64,
    dtype.bool: np.bool_,
    dtype.bfloat16: np.float32,  # NumPy has no bfloat16: float32 values, rounded by seam
}

values_indices = collections.namedtuple("values_indices", ["values", "indices"])


def _shape_args(args, what="shape"):
    """reshape(2, 3) and reshape((2, 3)) alike."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    try:
        return [int(a) for a in args]
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{what}: expected integers, got {args!r}") from None


def _dims(dim):
    if dim is None:
        return None
    if isinstance(dim, (tuple, list)):
        return [int(d) for d in dim]
    return [int(dim)]


def _norm_dim(d, ndim, what):
    if not -max(ndim, 1) <= d < max(ndim, 1):
        raise OutOfRangeError(f"{what}: dimension {d} is out of range for a tensor of rank {ndim}")
    return d % max(ndim, 1)


# --- creation ---------------------------------------------------------------------------


def _infer_array(data):
    """A C-contiguous NumPy array for `data`, with PyTorch's default dtypes for Python
    numbers (float -> float32, int -> int64); an ndarray keeps its dtype."""
    if isinstance(data, np.ndarray):
        return data
    arr = np.asarray(data)
    if arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    return arr


def tensor(data, dtype=None, requires_grad=False):
    """A new tensor holding a copy of `data` (a number, nested sequences, a NumPy array or
    a seam tensor); see torch.tensor."""
    if isinstance(data, Tensor):
        t = data.detach() if dtype is None else data.detach().to(dtype)
        t = Tensor(t, False)
    else:
        arr = _infer_array(data)
        if dtype is not None and arr.dtype.kind in "fiub":
            target = _NUMPY_OF[dtype]
            if arr.dtype != target:
                arr = arr.astype(target)
        t = _C._from_numpy(np.ascontiguousarray(arr), dtype)
    if requires_grad:
        t.requires_grad = True
    return t


def as_tensor(data, dtype=None):
    if isinstance(data, Tensor) and (dtype is None or data.dtype == dtype):
        return data
    return tensor(data, dtype)


def from_numpy(array):
    return tensor(np.asarray(array))


def _finish(t, requires_grad):
    if requires_grad:
        t.requires_grad = True
    return t


def zeros(*size, dtype=None, requires_grad=False):
    return _finish(_C.zeros(_shape_args(size), dtype or _C.dtype.float32), requires_grad)


def ones(*size, dtype=None, requires_grad=False):
    return _finish(_C.ones(_shape_args(size), dtype or _C.dtype.float32), requires_grad)


def _dtype_of_number(value):
    if isinstance(value, (builtins.bool, np.bool_)):
        return _C.dtype.bool
    if isinstance(value, (int, np.integer)):
        return _C.dtype.int64
    return _C.dtype.float32


def full(size, fill_value, dtype=None, requires_grad=False):
    dt = dtype or _dtype_of_number(fill_value)
    return _finish(_C.full(_shape_args([size]), fill_value, dt), requires_grad)


def zeros_like(t, dtype=None):
    return zeros(t.shape, dtype=dtype or t.dtype)


def ones_like(t, dtype=None):
    return ones(t.shape, dtype=dtype or t.dtype)


def full_like(t, fill_value, dtype=None):
    return full(t.shape, fill_value, dtype=dtype or t.dtype)


def arange(start, end=None, step=1, dtype=None):
    """torch.arange: [start, end) by step; integer arguments give int64, any float float32."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise InvalidArgumentError("arange: step must be nonzero")
    is_float = any(isinstance(v, float) for v in (start, end, step))
    dt = dtype or (_C.dtype.float32 if is_float else _C.dtype.int64)
    count = max(0, math.ceil((end - start) / step))
    t = _C.arange(count, dt)
    if step != 1:
        t = t * step
    if start != 0:
        t = t + start
    return t


def randn(*size, dtype=None, requires_grad=False):
    """Normal(0, 1) values drawn on the host (std::normal_distribution) from a seed that
    seam.manual_seed makes reproducible."""
    t = _C.randn(_shape_args(size), _random.next_seed(), dtype or _C.dtype.float32)
    return _finish(t, requires_grad)


def rand(*size, dtype=None, requires_grad=False):
    """Uniform [0, 1) from seam's device generator (seam::rand, Philox)."""
    return _finish(_C.rand(_shape_args(size), dtype or _C.dtype.float32), requires_grad)


def randn_like(t):
    return randn(t.shape, dtype=t.dtype)


def rand_like(t):
    return rand(t.shape, dtype=t.dtype)


def eye(n, m=None, dtype=None):
    m = n if m is None else m
    rows = _C.arange(n, _C.dtype.int32).reshape(n, 1)
    cols = _C.arange(m, _C.dtype.int32).reshape(1, m)
    return (rows == cols).to(dtype or _C.dtype.float32)


def manual_seed(seed):
    """torch.manual_seed: seeds the device generator (rand, dropout) and the host draws
    (randn, layer initialisation)."""
    _C.manual_seed(int(seed) & (2**64 - 1))  # restarts the host draws' sequence too


def _as_operand(value, like):
    return value if isinstance(value, Tensor) else _C.full([], value, like.dtype)


def where(condition, input, other):
    like = input if isinstance(input, Tensor) else other
    return _C.where(condition, _as_operand(input, like), _as_operand(other, like))


def clamp(input, min=None, max=None):
    out = input
    if min is not None:
        out = out.maximum(min)
    if max is not None:
        out = out.minimum(max)
    return out


def cat(tensors, dim=0):
    return _C.cat(list(tensors), int(dim))


def stack(tensors, dim=0):
    tensors = list(tensors)
    if not tensors:
        raise InvalidArgumentError("stack: expects a non-empty list of tensors")
    d = _norm_dim(dim, tensors[0].ndim + 1, "stack")
    return _C.cat([t.unsqueeze(d) for t in tensors], d)


# --- methods ----------------------------------------------------------------------------


def _reshape(self, *shape):
    return self._reshape(_shape_args(shape))


def _permute(self, *dims):
    return self._permute(_shape_args(dims, "permute"))


def _expand(self, *sizes):
    sizes = _shape_args(sizes, "expand")
    lead = len(sizes) - self.ndim
    shape = [s if s != -1 else self.shape[i - lead] for i, s in enumerate(sizes)]
    return self._broadcast_to(shape)


def _flatten(self, start_dim=0, end_dim=-1):
    if self.ndim == 0:
        return self.reshape(1)
    s = _norm_dim(start_dim, self.ndim, "flatten")
    e = _norm_dim(end_dim, self.ndim, "flatten")
    shape = list(self.shape)
    return self._reshape(shape[:s] + [-1 if 0 not in shape else 0] + shape[e + 1 :])


def _squeeze(self, dim=None):
    shape = list(self.shape)
    if dim is None:
        return self._reshape([s for s in shape if s != 1])
    d = _norm_dim(dim, self.ndim, "squeeze")
    if shape[d] != 1:
        return self
    return self._reshape(shape[:d] + shape[d + 1 :])


def _unsqueeze(self, dim):
    d = _norm_dim(dim, self.ndim + 1, "unsqueeze")
    shape = list(self.shape)
    return self._reshape(shape[:d] + [1] + shape[d:])


def _reduce(name):
    method = getattr(Tensor, name)

    def reduce(self, dim=None, keepdim=False, dtype=None):
        t = self if dtype is None else self.to(dtype)
        return method(t, _dims(dim), keepdim)

    return reduce


def _extreme(amax_name, arg_name):
    def extreme(self, dim=None, keepdim=False):
        values = getattr(Tensor, amax_name)(self, _dims(dim), keepdim)
        if dim is None:
            return values
        if isinstance(dim, (tuple, list)):
            raise InvalidArgumentError(f"max/min: dim must be one integer, got {dim!r}")
        indices = getattr(self, arg_name)(dim, keepdim)
        return values_indices(values, indices)

    return extreme


def _arg(name):
    def arg(self, dim=None, keepdim=False):
        if dim is None:
            return getattr(Tensor, name)(self.reshape(-1), 0).to(_C.dtype.int64)
        out = getattr(Tensor, name)(self, int(dim)).to(_C.dtype.int64)
        return out.unsqueeze(dim) if keepdim else out

    return arg


def _var(self, dim=None, unbiased=True, keepdim=False, correction=None):
    dims = _dims(dim)
    n = self.numel() if dims is None else math.prod(self.shape[d] for d in dims)
    ddof = (1 if unbiased else 0) if correction is None else correction
    centered = self - self._mean(dims, True)
    return (centered * centered)._sum(dims, keepdim) / max(n - ddof, 0)


def _std(self, dim=None, unbiased=True, keepdim=False, correction=None):
    return _var(self, dim, unbiased, keepdim, correction).sqrt()


def _index_key(self, key):
    """Normalises a __getitem__ key: a tuple without Ellipsis, one entry per consumed dim
    (None entries add a dim)."""
    if not isinstance(key, tuple):
        key = (key,)
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    if builtins.sum(1 for k in key if k is Ellipsis) > 1:
        raise InvalidArgumentError("index: at most one Ellipsis (...)")
    if consumed > self.ndim:
        raise OutOfRangeError(f"index: {consumed} indices for a tensor of rank {self.ndim}")
    out = []
    for k in key:
        if k is Ellipsis:
            out.extend([slice(None)] * (self.ndim - consumed))
        else:
            out.append(k)
    return out


def _is_mask(key):
    if isinstance(key, Tensor):
        return key.dtype == _C.dtype.bool
    if isinstance(key, np.ndarray):
        return key.dtype == np.bool_
    if isinstance(key, list) and key:
        return builtins.all(isinstance(k, (builtins.bool, np.bool_)) for k in np.ravel(key))
    return False


def _mask_positions(self, key):
    """The flat row numbers a boolean mask selects (PyTorch: the mask covers the leading
    dims of the tensor); reading a seam mask syncs it (the result's size depends on it)."""
    mask = key.numpy() if isinstance(key, Tensor) else np.asarray(key, dtype=np.bool_)
    lead = tuple(self.shape[: mask.ndim])
    if mask.shape != lead:
        raise InvalidArgumentError(
            f"index: the boolean mask has shape {list(mask.shape)}, which does not match the "
            f"tensor's leading dims {list(lead)}"
        )
    return np.flatnonzero(mask).astype(np.int64), math.prod(lead), mask.ndim


def _getitem(self, key):
    if _is_mask(key):
        rows, count, ndim = _mask_positions(self, key)
        rest = list(self.shape[ndim:])
        if rows.size == 0:
            return zeros([0] + rest, dtype=self.dtype)
        return _take_rows(self._reshape([count] + rest), rows)
    if isinstance(key, (list, np.ndarray)) or (isinstance(key, Tensor) and key.ndim > 0):
        return _take_rows(self, key)
    t = self
    axis = 0
    out = []  # the result's dims in order: an axis of t, or None for a new axis
    for k in _index_key(self, key):
        if k is None:
            out.append(None)
            continue
        size = t.shape[axis]
        if isinstance(k, Tensor):
            k = k.item()
        if isinstance(k, (int, np.integer)) and not isinstance(k, builtins.bool):
            i = int(k)
            if not -size <= i < size:
                raise OutOfRangeError(
                    f"index {i} is out of bounds for dimension {axis} with size {size}"
                )
            i %= size
            t = t._slice(axis, i, i + 1, 1)
            axis += 1
            continue
        elif isinstance(k, slice):
            start, stop, step = k.start, k.stop, k.step
            step = 1 if step is None else int(step)
            if step == 0:
                raise InvalidArgumentError("index: slice step cannot be zero")
            if step < 0:
                # A reversed slice: the positions it names, gathered along the axis.
                t = _take_along(t, axis, np.arange(*k.indices(size), dtype=np.int64))
                out.append(axis)
                axis += 1
                continue
            start = 0 if start is None else int(start)
            stop = size if stop is None else int(stop)
            if (start, stop, step) != (0, size, 1):
                t = t._slice(axis, start, stop, step)
        else:
            raise InvalidArgumentError(f"index: unsupported index {k!r}")
        out.append(axis)
        axis += 1
    shape = [1 if d is None else t.shape[d] for d in out] + list(t.shape[axis:])
    if list(shape) != list(t.shape):
        t = t._reshape(shape)
    return t


def _take_along(self, axis, positions):
    """Elements at `positions` (int64 ndarray, in range) along `axis`: a gather of rows."""
    if positions.size == 0:
        shape = list(self.shape)
        shape[axis] = 0
        return zeros(shape, dtype=self.dtype)
    if axis == 0:
        return _take_rows(self, positions)
    perm = [axis] + [d for d in range(self.ndim) if d != axis]
    moved = _take_rows(self._permute(perm), positions)
    inverse = [perm.index(d) for d in range(self.ndim)]
    return moved._permute(inverse)


def _take_rows(self, index):
    """self[index] for an integer tensor (or list) index along dim 0 (a gather of rows,
    seam.nn.functional.embedding's op: out-of-range ids are clamped)."""
    if not isinstance(index, Tensor):
        index = tensor(np.asarray(index))
    if index.dtype not in (_C.dtype.int32, _C.dtype.int64):
        raise InvalidArgumentError(
            f"index: tensor indices must be int32 or int64 (boolean masks are not supported), "
            f"got {index.dtype}"
        )
    rest = list(self.shape[1:])
    rows = self._reshape([self.shape[0], math.prod(rest)])
    out = _C.nn.embedding(rows, index)
    return out._reshape(list(index.shape) + rest)


def _setitem(self, key, value):
    """t[key] = value: the tensor object takes a new value with the selected elements
    replaced (PyTorch's semantics for the object: it keeps its identity, later reads see the
    new value, gradients flow to `value` and to the unselected elements of the old value).
    seam values are immutable, so this is a functional update (a scatter, or a select for a
    boolean mask with a scalar value) recorded like any op; see copy_ for the in-place rules
    (a leaf that requires grad may be assigned to only under seam.no_grad())."""
    shape = list(self.shape)
    if isinstance(value, Tensor):
        v = value if value.dtype == self.dtype else value.to(self.dtype)
    else:
        v = _C.full([], value, self.dtype)
    if _is_mask(key) and v.ndim == 0 and isinstance(key, Tensor) and (
            list(key.shape) == shape[: key.ndim]):
        mask = key._reshape(list(key.shape) + [1] * (self.ndim - key.ndim))
        return self.copy_(_C.where(mask._broadcast_to(shape), v._broadcast_to(shape), self))
    n = self.numel()
    positions = _getitem(_C.arange(n, _C.dtype.int32)._reshape(shape), key)
    target = list(positions.shape)
    if list(v.shape) != target:
        try:
            v = v._broadcast_to(target)
        except ValueError:
            raise InvalidArgumentError(
                f"setitem: a value of shape {list(v.shape)} cannot be broadcast to the "
                f"selection's shape {target}"
            ) from None
    if positions.numel() == 0:
        return None
    flat = self._reshape([n]).scatter(0, positions._reshape([-1]), v._reshape([-1]))
    self.copy_(flat._reshape(shape))
    return None


def _repr(self):
    body = np.array2string(self.numpy(), separator=", ", prefix="tensor(")
    extra = "" if self.dtype in (_C.dtype.float32, _C.dtype.int64, _C.dtype.bool) else (
        f", dtype={self.dtype!r}"
    )
    if self.requires_grad:
        extra += ", requires_grad=True"
    return f"tensor({body}{extra})"


def _len(self):
    if self.ndim == 0:
        raise TypeError("len() of a 0-d tensor")
    return self.shape[0]


def _iter(self):
    for i in range(len(self)):
        yield self[i]


def _to(self, *args, **kwargs):
    target = kwargs.get("dtype")
    for a in args:
        if isinstance(a, dtype):
            target = a
        elif isinstance(a, Tensor):
            target = a.dtype
        elif not (isinstance(a, str) or a is None):
            raise InvalidArgumentError(f"to: expected a dtype or a device name, got {a!r}")
    if target is None or target == self.dtype:
        return self
    return Tensor.to_dtype(self, target)


def _backward(self, gradient=None, retain_graph=None, create_graph=False):
    """backward(gradient=None, retain_graph=None, create_graph=False): adds the gradient of
    this tensor (a one-element loss, or its product with `gradient`) with respect to the leaves
    it was computed from into their .grad (torch.Tensor.backward; retain_graph and
    create_graph are accepted and ignored)."""
    _C.backward(self, gradient)


def _requires_grad_(self, requires_grad=True):
    self.requires_grad = requires_grad
    return self


def _zero_(self):
    return self.copy_(0)


def _fill_(self, value):
    return self.copy_(value)


def _gelu(self, approximate="none"):
    if approximate == "tanh":
        return self._gelu_tanh()
    if approximate != "none":
        raise InvalidArgumentError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return _C.nn.gelu(self)


def _deepcopy(self, memo):
    """A new leaf (of the same class, e.g. a Parameter) holding the same value: seam
    values are immutable, so sharing them is a copy."""
    out = type(self)(Tensor(self, False), self.requires_grad) if type(self) is not Tensor else (
        Tensor(self, self.requires_grad))
    memo[id(self)] = out
    return out


def _size(self, dim=None):
    return self.shape if dim is None else self.shape[dim]


def _install():
    T = Tensor
    names = {int(v): k for k, v in dtype.__members__.items()}
    dtype.__repr__ = lambda self: f"seam.{names[int(self)]}"
    dtype.__str__ = dtype.__repr__
    T.to_dtype = T.to
    T.to = _to
    T.reshape = _reshape
    T.view = _reshape
    T.permute = _permute
    T.expand = _expand
    T.broadcast_to = lambda self, shape: self._broadcast_to(_shape_args([shape]))
    T.flatten = _flatten
    T.squeeze = _squeeze
    T.unsqueeze = _unsqueeze
    T.t = lambda self: self.transpose(0, 1) if self.ndim == 2 else self
    T.T = property(lambda self: self._permute(list(range(self.ndim))[::-1]))
    T.mT = property(lambda self: self.transpose(-2, -1))
    T.sum = _reduce("_sum")
    T.mean = _reduce("_mean")
    T.prod = _reduce("_prod")
    T.amax = _reduce("_amax")
    T.amin = _reduce("_amin")
    T.max = _extreme("_amax", "argmax")
    T.min = _extreme("_amin", "argmin")
    T.argmax = _arg("_argmax")
    T.argmin = _arg("_argmin")
    T.var = _var
    T.std = _std
    T.__getitem__ = _getitem
    T.__setitem__ = _setitem
    T.__repr__ = _repr
    T.__str__ = _repr
    # T.item is the extension's (one element read straight into a Python number).
    T.tolist = lambda self: self.numpy().tolist()
    T.__len__ = _len
    T.__iter__ = _iter
    T.__bool__ = lambda self: builtins.bool(self.item())
    T.__float__ = lambda self: float(self.item())
    T.__int__ = lambda self: int(self.item())
    T.__index__ = lambda self: int(self.item())
    T.size = _size
    T.__deepcopy__ = _deepcopy
    T.__copy__ = lambda self: _deepcopy(self, {})
    T.float = lambda self: self.to(_C.dtype.float32)
    T.double = lambda self: self.to(_C.dtype.float64)
    T.int = lambda self: self.to(_C.dtype.int32)
    T.long = lambda self: self.to(_C.dtype.int64)
    T.bool = lambda self: self.to(_C.dtype.bool)
    T.bfloat16 = lambda self: self.to(_C.dtype.bfloat16)
    T.type_as = lambda self, other: self.to(other.dtype)
    T.cpu = lambda self: self
    T.contiguous = lambda self: self
    T.clone = lambda self: self.to_dtype(self.dtype)
    if not _C._install_backward(_backward):  # loss.backward() from C, other forms: _backward
        T.backward = _backward
    T.requires_grad_ = _requires_grad_
    T.zero_ = _zero_
    T.fill_ = _fill_
    T.gelu = _gelu
    T.clamp = clamp
    T.clip = clamp
    T.pow = lambda self, exponent: self ** exponent
    T.__pos__ = lambda self: self
    T.__rmatmul__ = lambda self, other: tensor(other).matmul(self)
    T.__array_ufunc__ = None  # NumPy defers to the tensor's reflected operators
    T.__array_priority__ = 1000
    T.device = property(lambda self: "seam")
    T.is_floating_point = lambda self: self.dtype.is_floating_point
    T.element_size = lambda self: self.dtype.itemsize
    T.square = lambda self: self * self
    T.exp2 = lambda self: (self * math.log(2.0)).exp()


_install()
