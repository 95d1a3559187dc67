"""The step's hot calls go through direct entry points (python/src/fast_calls.cc) instead of
pybind11's dispatcher; every other form of the same call must still reach the binding and
behave as it did: keywords, defaults, subclasses, wrong arguments and seam errors."""

import numpy as np
import pytest

import seam
import seam.nn as nn
import seam.nn.functional as F
from seam import _C


def _np(t):
    return np.asarray(t.numpy())


def test_the_hot_calls_are_direct_entry_points():
    # Not pybind11's function objects (whose __self__ is the capsule of its function record,
    # and whose methods are instancemethod objects) but plain C functions and descriptors.
    for function in (_C.nn.linear, _C.nn.cross_entropy, _C.backward, _C.sync):
        assert function.__self__ is None, function
    for cls, name in ((_C.Tensor, "relu"), (_C.Tensor, "item"), (_C.Tensor, "backward"),
                      (_C.optim.Optimizer, "step"),
                      (_C.optim.Optimizer, "clear_grads"), (_C.CompiledStep, "__call__")):
        assert type(cls.__dict__[name]).__name__ == "method_descriptor", name
    # Their docstrings are the bindings'.
    assert "weight" in _C.nn.linear.__doc__
    assert "mark_step" in seam.sync.__doc__


def test_linear_every_form_gives_the_same_values():
    seam.manual_seed(3)
    layer = nn.Linear(3, 2)
    x = seam.randn(4, 3)
    w, b = layer.weight, layer.bias  # Parameters: a Python subclass of the tensor
    want = _np(x) @ _np(w).T + _np(b)
    np.testing.assert_allclose(_np(_C.nn.linear(x, w, b)), want, rtol=1e-6)
    np.testing.assert_allclose(_np(_C.nn.linear(input=x, weight=w, bias=b)), want, rtol=1e-6)
    np.testing.assert_allclose(_np(_C.nn.linear(x, w)), want - _np(b), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(_np(_C.nn.linear(x, w, None)), want - _np(b), rtol=1e-6,
                               atol=1e-7)
    np.testing.assert_allclose(_np(layer(x)), want, rtol=1e-6)


def test_wrong_arguments_get_the_bindings_errors():
    x = seam.randn(4, 3)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        _C.nn.linear(x, 3)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        _C.nn.cross_entropy(x)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        x.relu(1)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        _C.sync(1)
    opt = seam.optim.SGD([nn.Parameter(seam.randn(2))], lr=0.1)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        opt._impls[0].step(1)
    with pytest.raises(seam.InvalidArgumentError, match="must be tensors, got int"):
        seam.compile(lambda a: a * 2.0)(3)


def test_seam_errors_raised_inside_keep_their_class_and_message():
    x = seam.randn(4, 3)
    with pytest.raises(seam.InvalidArgumentError, match=r"linear: the weight f32\[5,5\]"):
        _C.nn.linear(x, seam.randn(5, 5))
    with pytest.raises(ValueError, match="only a tensor of one element"):
        x.item()
    with pytest.raises(seam.InvalidArgumentError, match="does not require grad"):
        _C.backward(x.sum())


def test_relu_item_and_backward_on_subclasses_and_with_a_gradient():
    p = nn.Parameter(seam.tensor([-1.0, 2.0, -3.0]))
    np.testing.assert_array_equal(_np(p.relu()), [0.0, 2.0, 0.0])
    assert seam.tensor([2.5]).item() == 2.5
    assert seam.tensor(7).item() == 7
    (p * 2.0).sum().backward()
    np.testing.assert_array_equal(_np(p.grad), [2.0, 2.0, 2.0])
    (p * 1.0).backward(gradient=seam.tensor([1.0, 0.0, 3.0]))  # the binding's path
    np.testing.assert_array_equal(_np(p.grad), [3.0, 2.0, 5.0])
    (p * 1.0).backward(seam.tensor([1.0, 1.0, 1.0]), None, False)  # positional, Python's
    np.testing.assert_array_equal(_np(p.grad), [4.0, 3.0, 6.0])
    p.sum().backward(retain_graph=True)
    np.testing.assert_array_equal(_np(p.grad), [5.0, 4.0, 7.0])
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        p.sum().backward(bogus=1)
    with pytest.raises(seam.InvalidArgumentError, match="implicitly created only"):
        p.backward()
    assert "retain_graph" in _C.Tensor.backward.__doc__


def test_a_training_step_through_the_fast_calls_learns():
    seam.manual_seed(5)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    opt = seam.optim.SGD(model.parameters(), lr=0.5)
    x = seam.randn(6, 4)
    y = seam.tensor(np.array([0, 1, 2, 0, 1, 2], dtype=np.int32))
    losses = []
    for _ in range(100):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        seam.sync()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
    # zero_grad cleared what the step before it accumulated.
    assert all(p.grad is not None for p in model.parameters())
    opt.zero_grad()
    assert all(p.grad is None for p in model.parameters())


def test_optimizer_groups_changed_after_construction_take_the_general_path():
    a = nn.Parameter(seam.tensor([1.0, 2.0]))
    b = nn.Parameter(seam.tensor([3.0]))
    opt = seam.optim.SGD([a, b], lr=0.5)
    (a.sum() + b.sum()).backward()
    opt.param_groups[0]["params"] = [a]  # a new list: zero_grad walks the groups
    opt.zero_grad()
    assert a.grad is None and b.grad is not None
    opt.param_groups[0]["lr"] = 0.25  # pushed before the next step
    (a.sum() * 4.0).backward()
    opt.step()
    np.testing.assert_array_equal(_np(a), [0.0, 1.0])


def test_module_call_passes_everything_to_forward():
    class Scale(nn.Module):
        def forward(self, x, factor=2.0, *, shift=0.0):
            return x * factor + shift

    class Doubled(Scale):
        def __call__(self, x):  # a subclass's own __call__ still wins
            return super().__call__(x, 3.0) * 2.0

    x = seam.tensor([1.0, 2.0])
    m = Scale()
    np.testing.assert_array_equal(_np(m(x)), [2.0, 4.0])
    np.testing.assert_array_equal(_np(m(x, 4.0)), [4.0, 8.0])
    np.testing.assert_array_equal(_np(m(x, factor=0.5, shift=1.0)), [1.5, 2.0])
    np.testing.assert_array_equal(_np(m(x=x)), [2.0, 4.0])
    np.testing.assert_array_equal(_np(Doubled()(x)), [6.0, 12.0])
    with pytest.raises(NotImplementedError, match="has no forward"):
        nn.Module()(x)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        m(x, bogus=1)
    with pytest.raises(TypeError, match="needs the module"):
        nn.Module.__call__()
