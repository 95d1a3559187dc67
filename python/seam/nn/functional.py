"""seam.nn.functional: PyTorch's functional layer API over seam's layers and losses."""

from .. import _C
from .._errors import InvalidArgumentError
from .._tensor import Tensor, arange

_F = _C.nn


def _pair(v, what):
    if isinstance(v, int):
        return [v, v]
    v = list(v)
    if len(v) != 2:
        raise InvalidArgumentError(f"{what}: expected an int or a pair, got {v!r}")
    return [int(v[0]), int(v[1])]


def relu(input, inplace=False):
    return input.relu()


def gelu(input, approximate="none"):
    return input.gelu(approximate)


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def softmax(input, dim):
    return input.softmax(dim)


def log_softmax(input, dim):
    return input.log_softmax(dim)


def linear(input, weight, bias=None):
    """input @ weight.T + bias, weight [out, in] (PyTorch's layout)."""
    return _F.linear(input, weight, bias)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    out = _F.conv2d(input, weight, _pair(stride, "conv2d stride"), _pair(padding, "conv2d padding"),
                    _pair(dilation, "conv2d dilation"), int(groups))
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1)
    return out


def max_pool2d(input, kernel_size, stride=None, padding=0):
    k = _pair(kernel_size, "max_pool2d kernel_size")
    return _F.max_pool2d(input, k, k if stride is None else _pair(stride, "stride"),
                         _pair(padding, "padding"))


def avg_pool2d(input, kernel_size, stride=None, padding=0):
    k = _pair(kernel_size, "avg_pool2d kernel_size")
    return _F.avg_pool2d(input, k, k if stride is None else _pair(stride, "stride"),
                         _pair(padding, "padding"))


def embedding(input, weight):
    """Rows of weight [num, dim] named by the integer tensor input (ids outside
    [0, num) are clamped; PyTorch raises)."""
    return _F.embedding(weight, input)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    return _F.layer_norm(input, list(normalized_shape), weight, bias, eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    return _F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def dropout(input, p=0.5, training=True):
    return _F.dropout(input, float(p), bool(training))


def scaled_dot_product_attention(query, key, value, is_causal=False):
    return _F.scaled_dot_product_attention(query, key, value, is_causal)


def one_hot(tensor, num_classes):
    classes = arange(num_classes, dtype=tensor.dtype)
    return (tensor.unsqueeze(-1) == classes).to(_C.dtype.int64)


def _reduce(loss, reduction, what):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise InvalidArgumentError(f"{what}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def cross_entropy(input, target, reduction="mean"):
    """input [n, classes] logits, target [n] class indices (int32 or int64)."""
    if reduction == "mean":
        return _F.cross_entropy(input, target)
    return nll_loss(input.log_softmax(1), target, reduction)


def nll_loss(input, target, reduction="mean"):
    picked = (input * one_hot(target, input.shape[1]).to(input.dtype)).sum(1)
    return _reduce(-picked, reduction, "nll_loss")


def mse_loss(input, target, reduction="mean"):
    d = input - target
    return _reduce(d * d, reduction, "mse_loss")


def l1_loss(input, target, reduction="mean"):
    return _reduce((input - target).abs(), reduction, "l1_loss")


def binary_cross_entropy_with_logits(input, target, reduction="mean"):
    # max(x, 0) - x t + log(1 + exp(-|x|)), stable for large |x|.
    loss = input.maximum(0) - input * target + (-input.abs()).exp().log1p()
    return _reduce(loss, reduction, "binary_cross_entropy_with_logits")


def _is_tensor(x):
    return isinstance(x, Tensor)
