"""seam.autograd: torch.autograd.grad and the mode switches."""

from . import _C
from ._autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401


def grad(outputs, inputs, create_graph=False):
    """The gradients of the scalar `outputs` with respect to each of `inputs` (tensors it
    was computed from), returned without touching their .grad."""
    single = not isinstance(inputs, (list, tuple))
    grads = _C.grad(outputs, [inputs] if single else list(inputs), create_graph)
    return tuple(grads)


def backward(tensor, gradient=None):
    _C.backward(tensor, gradient)
