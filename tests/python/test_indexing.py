"""Item assignment (t[...] = v), boolean-mask reads and negative slice steps, against NumPy,
with gradients through an assignment and PyTorch's in-place rule for leaves."""

import numpy as np
import pytest

import seam

rng = np.random.default_rng(11)


def _x():
    return rng.standard_normal((3, 4, 5)).astype(np.float32)


@pytest.mark.parametrize(
    "key",
    [
        np.s_[::-1],
        np.s_[:, ::-2],
        np.s_[1:, 3:0:-1, ::-3],
        np.s_[..., ::-1],
        np.s_[-1, ::-1, 2],
        np.s_[2:0:-1, None, 1],
    ],
)
def test_negative_slice_steps_read_like_numpy(key):
    x = _x()
    np.testing.assert_array_equal(seam.tensor(x)[key].numpy(), x[key])


def test_empty_reversed_slice():
    x = _x()
    assert seam.tensor(x)[0:2:-1].shape == x[0:2:-1].shape


def test_boolean_mask_reads_like_numpy():
    x = _x()
    t = seam.tensor(x)
    for mask in (x > 0.3, x[:, :, 0] > 0, x[:, 0, 0] > 5):
        np.testing.assert_array_equal(t[seam.tensor(mask)].numpy(), x[mask])
        np.testing.assert_array_equal(t[mask].numpy(), x[mask])
    with pytest.raises(ValueError, match=r"boolean mask has shape \[4\]"):
        t[seam.tensor(np.ones(4, bool))]


def test_boolean_mask_read_has_a_gradient():
    x = _x()
    w = seam.tensor(x, requires_grad=True)
    mask = x > 0
    (w[seam.tensor(mask)] * 3).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.where(mask, 3.0, 0.0))


@pytest.mark.parametrize(
    "key, value",
    [
        (np.s_[1], 2.5),
        (np.s_[0, 1:3], np.arange(5, dtype=np.float32)),
        (np.s_[:, ::2, -1], np.arange(6, dtype=np.float32).reshape(3, 2)),
        (np.s_[::-1, 0], np.ones((3, 5), np.float32) * 7),
        (np.s_[..., 4], -1.0),
        (np.s_[2, None, 3], np.full((1, 5), 9, np.float32)),
        (np.s_[[0, 2]], np.float32(4)),
    ],
)
def test_setitem_matches_numpy(key, value):
    x = _x()
    t = seam.tensor(x)
    before = id(t)
    t[key] = seam.tensor(value) if isinstance(value, np.ndarray) else value
    expected = x.copy()
    expected[key] = value
    assert id(t) == before
    np.testing.assert_array_equal(t.numpy(), expected)


def test_setitem_with_boolean_masks():
    x = _x()
    t = seam.tensor(x)
    mask = x > 0.5
    t[seam.tensor(mask)] = 0.0  # a scalar: a select, nothing synced
    expected = x.copy()
    expected[mask] = 0
    np.testing.assert_array_equal(t.numpy(), expected)
    rows = x[:, 0, 0] > 0
    values = np.arange(rows.sum() * 20, dtype=np.float32).reshape(-1, 4, 5)
    t[rows] = seam.tensor(values)
    expected[rows] = values
    np.testing.assert_array_equal(t.numpy(), expected)


def test_setitem_converts_and_refuses_bad_shapes():
    t = seam.zeros(2, 3, dtype=seam.int32)
    t[0] = seam.tensor([1.9, 2.0, 3.0])  # converted to the tensor's dtype (PyTorch too)
    np.testing.assert_array_equal(t.numpy(), [[1, 2, 3], [0, 0, 0]])
    with pytest.raises(ValueError, match=r"cannot be broadcast to the selection's shape \[3\]"):
        t[1] = seam.tensor([1, 2])


def test_setitem_gradients_and_leaf_rule():
    x = _x()
    w = seam.tensor(x, requires_grad=True)
    v = seam.tensor(np.ones(5, np.float32), requires_grad=True)
    with pytest.raises(ValueError, match="leaf tensor that requires grad"):
        w[0, 0] = v
    t = w * 2
    t[0, 1:3] = v * 3
    (t * t).sum().backward()
    expected_t = 2 * x
    expected_t[0, 1:3] = 3
    grad_w = 2 * (2 * expected_t)
    grad_w[0, 1:3] = 0  # overwritten elements pass no gradient to the old value
    np.testing.assert_allclose(w.grad.numpy(), grad_w, rtol=1e-6)
    np.testing.assert_allclose(v.grad.numpy(), np.full(5, 2 * 3 * 3 * 2, np.float32))
    with seam.no_grad():
        w[0, 0] = 0.0
    assert w.numpy()[0, 0].tolist() == [0.0] * 5
