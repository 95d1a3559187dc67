"""NumPy and DLPack: numpy() owns its buffer, seam.tensor copies once, DLPack both ways with
NumPy and (where python3-torch is installed) PyTorch. seam's DLPack export shares a computed
tensor's CPU buffer and its import copies (docs/python.md, "NumPy and DLPack"): the tests check
which memory is shared and which is not, and that a shared buffer outlives the tensor."""

import gc

import numpy as np
import pytest

import seam

rng = np.random.default_rng(3)


def test_numpy_owns_its_buffer_and_tensor_copies_in():
    x = rng.standard_normal((3, 4)).astype(np.float32)
    original = x.copy()
    t = seam.tensor(x)
    x[0, 0] = 100.0  # the tensor took a copy
    assert t[0, 0].item() == original[0, 0]
    a = (t * 2).numpy()
    assert a.flags.c_contiguous and a.flags.writeable and a.dtype == np.float32
    assert a.base is not None and not isinstance(a.base, np.ndarray)  # a buffer of its own
    a[:] = 0
    np.testing.assert_array_equal((t * 2).numpy(), original * 2)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.int64, np.bool_])
def test_numpy_round_trip_every_dtype(dt):
    x = (rng.standard_normal((2, 3)) * 10).astype(dt)
    t = seam.tensor(x)
    np.testing.assert_array_equal(t.numpy(), x)
    assert t.numpy().dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(t), x)
    np.testing.assert_array_equal(np.asarray(t, dtype=np.float64), x.astype(np.float64))


def test_numpy_dlpack_both_ways():
    x = rng.standard_normal((4, 5)).astype(np.float32)
    t = seam.tensor(x) + 1
    assert t.__dlpack_device__() == (1, 0)
    back = np.from_dlpack(t)
    np.testing.assert_array_equal(back, x + 1)
    s = seam.from_dlpack(x)
    np.testing.assert_array_equal(s.numpy(), x)
    x[:] = 7  # seam's import copied
    assert s[0, 0].item() != 7
    with pytest.raises(ValueError, match="not compact and row-major"):
        seam.from_dlpack(np.asfortranarray(rng.standard_normal((3, 2))))
    with pytest.raises(ValueError, match="no seam dtype"):
        seam.from_dlpack(np.zeros(3, np.int16))


def test_uint8_widens_to_int32_and_bool_exports_as_uint8():
    x = np.array([0, 7, 255], np.uint8)
    for t in (seam.tensor(x), seam.from_dlpack(x)):
        assert t.dtype == seam.int32
        np.testing.assert_array_equal(t.numpy(), x.astype(np.int32))
    flags = seam.tensor([True, False]) & seam.tensor([True, True])
    exported = np.from_dlpack(flags)
    assert exported.dtype == np.uint8
    np.testing.assert_array_equal(exported, [1, 0])
    np.testing.assert_array_equal(flags.numpy(), [True, False])


def test_copy_converts_and_broadcasts():
    t = seam.zeros(2, 3)
    t.copy_(seam.tensor([1, 2, 3], dtype=seam.int32))
    np.testing.assert_array_equal(t.numpy(), [[1, 2, 3], [1, 2, 3]])
    assert t.dtype == seam.float32


def test_bfloat16_reads_as_float32():
    t = seam.tensor([1.5, -2.25], dtype=seam.bfloat16)
    a = t.numpy()
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, [1.5, -2.25])


def _torch():
    try:
        import torch
    except ImportError as e:
        pytest.skip(f"python3-torch is not installed ({e}): the PyTorch DLPack checks are skipped")
    return torch


def test_torch_dlpack_both_ways():
    torch = _torch()
    x = rng.standard_normal((3, 4)).astype(np.float32)
    t = seam.tensor(x) * 3
    tt = torch.from_dlpack(t)
    assert tt.dtype == torch.float32 and tuple(tt.shape) == (3, 4)
    np.testing.assert_array_equal(tt.numpy(), x * 3)
    for dt in (torch.float32, torch.float64, torch.int32, torch.int64, torch.bfloat16):
        src = (torch.arange(6).reshape(2, 3) - 2).to(dt)
        s = seam.from_dlpack(src)
        np.testing.assert_array_equal(s.float().numpy(), src.float().numpy())
        back = torch.from_dlpack(s)
        assert back.dtype == dt and torch.equal(back, src)
    src = torch.ones(2, 2)
    s = seam.from_dlpack(src)
    src.add_(1)  # the import copied: nothing shared
    np.testing.assert_array_equal(s.numpy(), np.ones((2, 2)))
    with pytest.raises(ValueError, match="not compact"):
        seam.from_dlpack(torch.ones(3, 2).t())


def _address(a):
    return a.__array_interface__["data"][0]


def test_numpy_dlpack_export_shares_the_cpu_buffer():
    x = rng.standard_normal((64, 32)).astype(np.float32)
    t = seam.tensor(x) * 2
    assert t._dlpack_shares()
    a = np.from_dlpack(t)
    b = np.from_dlpack(t)
    # Two exports of one tensor see the same memory (copies would be two buffers).
    assert _address(a) == _address(b)
    np.testing.assert_array_equal(a, x * 2)
    # numpy() still copies: its buffer is the array's own.
    assert _address(t.numpy()) != _address(a)
    for dt in (seam.float64, seam.int32, seam.int64):
        u = (seam.tensor(x) * 4).to(dt)
        assert u._dlpack_shares()
        np.testing.assert_array_equal(np.from_dlpack(u), (x * 4).astype(u.numpy().dtype))


def test_dlpack_export_outlives_the_tensor():
    x = rng.standard_normal((256, 64)).astype(np.float32)
    t = seam.tensor(x) + 1
    a = np.from_dlpack(t)
    address = _address(a)
    del t
    gc.collect()
    # Other values made and freed meanwhile must not take the exported buffer's memory.
    for _ in range(5):
        u = seam.tensor(x) * 0 - 7
        seam.sync()
        np.from_dlpack(u)
        del u
    assert _address(a) == address
    np.testing.assert_array_equal(a, x + 1)


def test_dlpack_copies_where_it_cannot_share():
    x = rng.standard_normal((4, 4)).astype(np.float32)
    host_only = seam.tensor(x)  # not used by a step yet: its value is still seam's host copy
    assert not host_only._dlpack_shares()
    np.testing.assert_array_equal(np.from_dlpack(host_only), x)
    flags = seam.tensor(x) > 0  # bool goes out as a converted uint8 copy
    assert not flags._dlpack_shares()
    np.testing.assert_array_equal(np.from_dlpack(flags), (x > 0).astype(np.uint8))


def test_torch_sees_writes_through_the_shared_buffer():
    torch = _torch()
    x = rng.standard_normal((3, 5)).astype(np.float32)
    t = seam.tensor(x) * 1
    tt = torch.from_dlpack(t)
    tt2 = torch.from_dlpack(t)
    assert tt.data_ptr() == tt2.data_ptr()
    tt[0, 0] = 123.0  # PyTorch's DLPack sharing: a write is visible to the other side
    assert tt2[0, 0].item() == 123.0
    assert t.numpy()[0, 0] == 123.0
    del t
    gc.collect()
    np.testing.assert_array_equal(tt2.numpy()[1:], x[1:])


# NumPy arrays as operands: on either side of + - * / and the comparisons the result is a seam
# tensor (the tensor class sets __array_ufunc__ = None, so NumPy defers to its reflected
# operators), the array taking the tensor's dtype as a Python number does.
ARITHMETIC = [
    (lambda a, b: a + b, "+"),
    (lambda a, b: a - b, "-"),
    (lambda a, b: a * b, "*"),
    (lambda a, b: a / b, "/"),
    (lambda a, b: a < b, "<"),
    (lambda a, b: a <= b, "<="),
    (lambda a, b: a > b, ">"),
    (lambda a, b: a >= b, ">="),
    (lambda a, b: a == b, "=="),
    (lambda a, b: a != b, "!="),
]


@pytest.mark.parametrize("op,name", ARITHMETIC, ids=[n for _, n in ARITHMETIC])
def test_ndarray_on_either_side_gives_a_tensor(op, name):
    x = np.array([[1.5, -2.0, 3.0], [0.25, 4.0, -1.0]], dtype=np.float32)
    y = np.array([2.0, -2.0, 0.5], dtype=np.float32)  # broadcast over the rows
    t = seam.tensor(x)
    for left, right, want in ((y, t, op(y, x)), (t, y, op(x, y))):
        got = op(left, right)
        assert isinstance(got, seam.Tensor), (name, type(got))
        np.testing.assert_array_equal(got.numpy(), want)
        assert got.numpy().dtype == want.dtype


def test_ndarray_takes_the_tensors_dtype():
    t = seam.tensor(np.array([1.0, 2.0], dtype=np.float32))
    got = np.array([0.1, 0.2]) + t  # float64 array, float32 tensor: a float32 result
    assert got.dtype == seam.float32
    want = np.array([0.1, 0.2]).astype(np.float32) + np.array([1, 2], dtype=np.float32)
    np.testing.assert_array_equal(got.numpy(), want)
    ints = seam.tensor(np.array([5, 7], dtype=np.int64))
    assert (np.array([1, 2], dtype=np.int32) * ints).numpy().tolist() == [5, 14]
    assert (np.array([1, 2], dtype=np.int32) * ints).dtype == seam.int64
    np.testing.assert_array_equal((np.float64(2.0) - t).numpy(), [1.0, 0.0])  # NumPy scalar
    zero_d = np.array(3.0) * t  # a 0-d array broadcasts
    np.testing.assert_array_equal(zero_d.numpy(), [3.0, 6.0])


def test_ndarray_operand_carries_no_gradient_but_the_tensor_does():
    w = seam.tensor(np.array([1.0, -3.0], dtype=np.float32), requires_grad=True)
    scale = np.array([2.0, 5.0], dtype=np.float32)
    (scale * w - np.ones(2, dtype=np.float32)).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), scale)


def test_ndarray_that_would_lose_values_is_refused_by_name():
    ints = seam.tensor(np.array([1, 2], dtype=np.int32))
    with pytest.raises(ValueError, match="__radd__: a NumPy array of dtype float64 does not "
                                         "combine with a tensor of dtype int32"):
        _ = np.array([0.5, 1.5]) + ints
    with pytest.raises(ValueError, match="float64 .*tensor of dtype bool"):
        _ = seam.tensor(np.array([True, False])) == np.array([1.0, 0.0])


def test_in_place_with_an_ndarray():
    t = seam.tensor(np.array([1.0, 2.0], dtype=np.float32))
    before = t
    t += np.array([10.0, 20.0])
    assert t is before
    np.testing.assert_array_equal(t.numpy(), [11.0, 22.0])
