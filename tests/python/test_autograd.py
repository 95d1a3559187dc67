"""PyTorch's autograd semantics: gradients against finite differences, accumulation until
zero_grad, no_grad, requires_grad propagation, torch.autograd.grad."""

import numpy as np
import pytest

import seam
import seam.nn.functional as F

rng = np.random.default_rng(11)


def finite_difference(fn, x, eps=1e-6):
    """Central differences of the scalar fn(x) (float64 NumPy) for each element of x."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (fn(up) - fn(down)) / (2 * eps)
    return g


CASES = [
    ("tanh_sum", lambda t: t.tanh().sum()),
    ("exp_mean", lambda t: (t * 0.5).exp().mean()),
    ("matmul", lambda t: (t @ t.T).sum()),
    ("softmax", lambda t: (t.softmax(1) * t).sum()),
    ("log_softmax", lambda t: t.log_softmax(-1)[:, 1].sum()),
    ("sigmoid_pow", lambda t: (t.sigmoid() ** 3).sum()),
    ("div_sqrt", lambda t: (t / (t * t + 1).sqrt()).sum()),
    ("reduce_max", lambda t: t.amax(1).sum()),
    ("slicing", lambda t: (t[1:, ::2] * t[:-1, 1::2]).sum()),
    ("layer_norm", lambda t: (F.layer_norm(t, [4]) * seam.arange(4.0).double()).sum()),
    ("cross_entropy", lambda t: F.cross_entropy(t, seam.tensor([0, 3, 1]))),
    ("mse", lambda t: F.mse_loss(t, t.detach() * 0 + 1)),
]


@pytest.mark.parametrize("name,fn", CASES)
def test_gradient_matches_finite_differences(name, fn):
    x = rng.standard_normal((3, 4))
    t = seam.tensor(x, dtype=seam.float64, requires_grad=True)
    fn(t).backward()

    def value(v):
        return fn(seam.tensor(v, dtype=seam.float64)).item()

    np.testing.assert_allclose(t.grad.numpy(), finite_difference(value, x), rtol=1e-5, atol=1e-6)


def test_conv_and_pool_gradients():
    x = rng.standard_normal((1, 2, 5, 5))
    w = rng.standard_normal((3, 2, 3, 3))

    def loss(xv, wv):
        y = F.conv2d(xv, wv, padding=1)
        return F.max_pool2d(y, 2).sum() + F.avg_pool2d(y, 2).sum()

    tw = seam.tensor(w, requires_grad=True)
    loss(seam.tensor(x), tw).backward()
    fd = finite_difference(lambda v: loss(seam.tensor(x), seam.tensor(v)).item(), w)
    np.testing.assert_allclose(tw.grad.numpy(), fd, rtol=1e-5, atol=1e-6)


def test_grad_accumulates_until_zero_grad():
    w = seam.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    (3 * w).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [2 + 3, 4 + 3])
    w.grad = None
    (w * w).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [2, 4])


def test_requires_grad_propagation_and_leaves():
    a = seam.tensor([1.0, 2.0], requires_grad=True)
    b = seam.tensor([3.0, 4.0])
    c = a * b
    assert a.is_leaf and b.is_leaf and not c.is_leaf
    assert c.requires_grad and not b.requires_grad
    assert not (a > 1).requires_grad
    assert not c.detach().requires_grad
    with seam.no_grad():
        d = a * 2
    assert not d.requires_grad and d.is_leaf
    with pytest.raises(ValueError, match="leaf"):
        c.requires_grad = False
    with pytest.raises(ValueError, match="only floating-point"):
        seam.tensor([1, 2]).requires_grad_()


def test_only_the_leaves_used_get_gradients():
    a = seam.tensor([1.0], requires_grad=True)
    b = seam.tensor([2.0], requires_grad=True)
    (a * 5).sum().backward()
    assert a.grad is not None and b.grad is None


def test_backward_errors():
    with pytest.raises(ValueError, match="does not require grad"):
        seam.tensor([1.0]).sum().backward()
    a = seam.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(ValueError, match="only for a tensor of one element"):
        (a * 2).backward()
    (a * 2).backward(gradient=seam.tensor([1.0, 10.0]))
    np.testing.assert_allclose(a.grad.numpy(), [2, 20])


def test_in_place_on_leaf_needs_no_grad():
    w = seam.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="in place"):
        w += 1
    with seam.no_grad():
        w -= 0.5
    assert w.is_leaf and w.requires_grad
    np.testing.assert_allclose(w.numpy(), [0.5])


def test_no_grad_decorator_and_autograd_grad():
    x = seam.tensor([1.0, 2.0, 3.0], requires_grad=True)

    @seam.no_grad()
    def double(t):
        return t * 2

    assert not double(x).requires_grad
    (g,) = seam.autograd.grad((x ** 3).sum(), [x])
    np.testing.assert_allclose(g.numpy(), 3 * np.array([1, 4, 9]))
    assert x.grad is None
    (g,) = seam.autograd.grad((x ** 3).sum(), [x], create_graph=True)
    (g2,) = seam.autograd.grad(g.sum(), [x])
    np.testing.assert_allclose(g2.numpy(), 6 * np.array([1, 2, 3]))
