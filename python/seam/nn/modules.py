"""seam.nn's modules: torch.nn.Module's bookkeeping in Python (subclass it as in PyTorch)
and the layers, with PyTorch's parameter names, layouts and default initialisation."""

import collections
import math

from .. import _C, _random
from .._autograd import no_grad
from .._errors import InvalidArgumentError
from .._tensor import Tensor, ones, tensor, zeros
from . import functional as F

_linear = _C.nn.linear  # the extension's direct entry point (python/src/fast_calls.cc)


class Parameter(Tensor):
    """A tensor that is a module's parameter: a leaf with requires_grad=True by default."""

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = zeros(0)
        elif not isinstance(data, Tensor):
            data = tensor(data)
        super().__init__(data, bool(requires_grad))

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)


class Module:
    """torch.nn.Module: assigning a Parameter or a Module to an attribute registers it;
    buffers are registered with register_buffer."""

    def __init__(self):
        object.__setattr__(self, "_parameters", collections.OrderedDict())
        object.__setattr__(self, "_buffers", collections.OrderedDict())
        object.__setattr__(self, "_modules", collections.OrderedDict())
        object.__setattr__(self, "training", True)

    def _check_init(self):
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                f"{type(self).__name__}: call super().__init__() before assigning attributes"
            )

    def __setattr__(self, name, value):
        if isinstance(value, Parameter):
            self._check_init()
            self._buffers.pop(name, None)
            self._modules.pop(name, None)
            self.__dict__.pop(name, None)
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._check_init()
            self._parameters.pop(name, None)
            self.__dict__.pop(name, None)
            self._modules[name] = value
        elif "_buffers" in self.__dict__ and name in self._buffers:
            self._buffers[name] = value
        elif "_parameters" in self.__dict__ and name in self._parameters and value is None:
            self._parameters[name] = None
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        self._check_init()
        self._parameters[name] = param

    def register_buffer(self, name, t, persistent=True):
        self._check_init()
        self._buffers[name] = t

    def add_module(self, name, module):
        self._check_init()
        self._modules[name] = module

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} has no forward()")

    # self.forward(*args, **kwargs), as a C function (python/src/fast_calls.cc): no Python
    # frame between a layer's call and its forward. A subclass may still define __call__.
    __call__ = _C._module_call

    def named_modules(self, prefix=""):
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        for name, m in self._modules.items():
            if m is not None:
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named(self, table, prefix, recurse):
        seen = set()
        modules = self.named_modules(prefix) if recurse else [(prefix, self)]
        for mprefix, m in modules:
            for name, t in getattr(m, table).items():
                if t is None or id(t) in seen:
                    continue
                seen.add(id(t))
                yield (f"{mprefix}.{name}" if mprefix else name), t

    def named_parameters(self, prefix="", recurse=True):
        yield from self._named("_parameters", prefix, recurse)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True):
        yield from self._named("_buffers", prefix, recurse)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def state_dict(self):
        """Every parameter then every buffer, by dotted name (values, detached)."""
        out = collections.OrderedDict()
        for name, p in self.named_parameters():
            out[name] = p.detach()
        for name, b in self.named_buffers():
            out[name] = b.detach()
        return out

    def load_state_dict(self, state_dict, strict=True):
        """Sets every parameter and buffer from `state_dict`. Every name, shape and dtype is
        checked first; a problem raises seam.InvalidArgumentError naming each one, and then
        nothing has changed."""
        own = collections.OrderedDict(self.named_parameters())
        own.update(self.named_buffers())
        problems = []
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and missing:
            problems.append("missing: " + ", ".join(missing))
        if strict and unexpected:
            problems.append("unexpected: " + ", ".join(unexpected))
        for name, t in own.items():
            if name not in state_dict:
                continue
            v = state_dict[name]
            if not isinstance(v, Tensor):
                v = tensor(v, dtype=t.dtype)
            if tuple(v.shape) != tuple(t.shape) or v.dtype != t.dtype:
                problems.append(
                    f"{name}: expected shape {tuple(t.shape)} {t.dtype!r}, got "
                    f"{tuple(v.shape)} {v.dtype!r}"
                )
        if problems:
            raise InvalidArgumentError(
                f"load_state_dict for {type(self).__name__}: " + "; ".join(problems)
            )
        with no_grad():
            for name, t in own.items():
                if name in state_dict:
                    v = state_dict[name]
                    t.copy_(v if isinstance(v, Tensor) else tensor(v, dtype=t.dtype))
        return collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])(
            missing, unexpected
        )

    def train(self, mode=True):
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self):
        return self.train(False)

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if set_to_none or p.grad is None:
                p.grad = None
            else:
                p.grad = zeros(p.shape, dtype=p.dtype)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad = requires_grad
        return self

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = [f"{type(self).__name__}({self.extra_repr()}"]
        for name, m in self._modules.items():
            sub = repr(m).replace("\n", "\n  ")
            lines.append(f"  ({name}): {sub}")
        return "\n".join(lines) + (")" if len(lines) == 1 else "\n)")


def _uniform(shape, bound, dtype):
    return _C.uniform(list(shape), -bound, bound, _random.next_seed(), dtype)


class Linear(Module):
    """y = x @ weight.T + bias; weight [out, in] and bias [out] drawn from U(-1/sqrt(in),
    1/sqrt(in)) (PyTorch's default bounds; the draws are seam's, from seam.manual_seed)."""

    def __init__(self, in_features, out_features, bias=True, dtype=None):
        super().__init__()
        dtype = dtype or _C.dtype.float32
        self.in_features, self.out_features = in_features, out_features
        bound = 1.0 / math.sqrt(in_features) if in_features > 0 else 0.0
        self.weight = Parameter(_uniform([out_features, in_features], bound, dtype))
        self.bias = Parameter(_uniform([out_features], bound, dtype)) if bias else None
        if not bias:
            self.register_parameter("bias", None)

    def forward(self, x):
        p = self._parameters  # not self.weight: Module.__getattr__ is a Python-level lookup
        return _linear(x, p["weight"], p["bias"])

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}"


class Conv2d(Module):
    """torch.nn.Conv2d on NCHW: weight [out, in/groups, kh, kw], bias [out]."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, dtype=None):
        super().__init__()
        dtype = dtype or _C.dtype.float32
        k = F._pair(kernel_size, "Conv2d kernel_size")
        if in_channels % groups or out_channels % groups:
            raise InvalidArgumentError(
                f"Conv2d: in_channels {in_channels} and out_channels {out_channels} must be "
                f"divisible by groups {groups}"
            )
        fan_in = in_channels // groups * k[0] * k[1]
        bound = 1.0 / math.sqrt(fan_in)
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        self.weight = Parameter(_uniform([out_channels, in_channels // groups] + k, bound, dtype))
        if bias:
            self.bias = Parameter(_uniform([out_channels], bound, dtype))
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class MaxPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def forward(self, x):
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding)


class AvgPool2d(MaxPool2d):
    def forward(self, x):
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding)


class Embedding(Module):
    """weight [num_embeddings, embedding_dim] from N(0, 1), PyTorch's default."""

    def __init__(self, num_embeddings, embedding_dim, dtype=None):
        super().__init__()
        dtype = dtype or _C.dtype.float32
        self.weight = Parameter(
            _C.randn([num_embeddings, embedding_dim], _random.next_seed(), dtype)
        )

    def forward(self, indices):
        return F.embedding(indices, self.weight)


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, dtype=None):
        super().__init__()
        dtype = dtype or _C.dtype.float32
        if isinstance(normalized_shape, int):
            normalized_shape = [normalized_shape]
        self.normalized_shape, self.eps = list(normalized_shape), eps
        if elementwise_affine:
            self.weight = Parameter(ones(self.normalized_shape, dtype=dtype))
            self.bias = Parameter(zeros(self.normalized_shape, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, x):
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


class BatchNorm2d(Module):
    """Batch statistics in training mode (the running ones updated), running statistics in
    eval mode; buffers running_mean, running_var and num_batches_tracked."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, dtype=None):
        super().__init__()
        dtype = dtype or _C.dtype.float32
        self.eps, self.momentum = eps, momentum
        self.weight = Parameter(ones(num_features, dtype=dtype))
        self.bias = Parameter(zeros(num_features, dtype=dtype))
        self.register_buffer("running_mean", zeros(num_features, dtype=dtype))
        self.register_buffer("running_var", ones(num_features, dtype=dtype))
        self.register_buffer("num_batches_tracked", tensor(0, dtype=_C.dtype.int64))

    def forward(self, x):
        out = F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                           self.training, self.momentum, self.eps)
        if self.training:
            with no_grad():
                self.num_batches_tracked += 1
        return out


class Dropout(Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0 <= p < 1:
            raise InvalidArgumentError(f"Dropout: p must be in [0, 1), got {p}")
        self.p = p

    def forward(self, x):
        return F.dropout(x, self.p, self.training)


class _Activation(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()


class ReLU(_Activation):
    def forward(self, x):
        return x.relu()


class Tanh(_Activation):
    def forward(self, x):
        return x.tanh()


class Sigmoid(_Activation):
    def forward(self, x):
        return x.sigmoid()


class Identity(_Activation):
    def forward(self, x):
        return x


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, x):
        return x.gelu(self.approximate)


class Softmax(Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return x.softmax(self.dim)


class LogSoftmax(Softmax):
    def forward(self, x):
        return x.log_softmax(self.dim)


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x):
        return x.flatten(self.start_dim, self.end_dim)


class Sequential(Module):
    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], collections.OrderedDict):
            for name, m in modules[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(modules):
                self.add_module(str(i), m)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x

    def __getitem__(self, i):
        return list(self._modules.values())[i]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self


class ModuleList(Module):
    def __init__(self, modules=()):
        super().__init__()
        for m in modules:
            self.append(m)

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def __getitem__(self, i):
        return list(self._modules.values())[i]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())


class _Loss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction


class CrossEntropyLoss(_Loss):
    def forward(self, input, target):
        return F.cross_entropy(input, target, self.reduction)


class NLLLoss(_Loss):
    def forward(self, input, target):
        return F.nll_loss(input, target, self.reduction)


class MSELoss(_Loss):
    def forward(self, input, target):
        return F.mse_loss(input, target, self.reduction)


class L1Loss(_Loss):
    def forward(self, input, target):
        return F.l1_loss(input, target, self.reduction)


class BCEWithLogitsLoss(_Loss):
    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.reduction)
