"""Every public tensor operation's result against NumPy's."""

import numpy as np
import pytest

import seam

rng = np.random.default_rng(7)
A = rng.standard_normal((3, 4)).astype(np.float32)
B = rng.standard_normal((3, 4)).astype(np.float32)
POS = (np.abs(A) + 0.5).astype(np.float32)


def close(t, expected, rtol=1e-5, atol=1e-6):
    got = t.numpy() if isinstance(t, seam.Tensor) else np.asarray(t)
    assert got.shape == np.shape(expected), (got.shape, np.shape(expected))
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize(
    "name,fn,ref,data",
    [
        ("neg", lambda t: -t, lambda a: -a, A),
        ("exp", lambda t: t.exp(), np.exp, A),
        ("log", lambda t: t.log(), np.log, POS),
        ("tanh", lambda t: t.tanh(), np.tanh, A),
        ("sigmoid", lambda t: t.sigmoid(), lambda a: 1 / (1 + np.exp(-a)), A),
        ("relu", lambda t: t.relu(), lambda a: np.maximum(a, 0), A),
        ("sqrt", lambda t: t.sqrt(), np.sqrt, POS),
        ("rsqrt", lambda t: t.rsqrt(), lambda a: 1 / np.sqrt(a), POS),
        ("abs", lambda t: abs(t), np.abs, A),
        ("sign", lambda t: t.sign(), np.sign, A),
        ("log1p", lambda t: t.log1p(), np.log1p, POS),
        ("floor", lambda t: t.floor(), np.floor, A * 3),
        ("ceil", lambda t: t.ceil(), np.ceil, A * 3),
        ("square", lambda t: t.square(), np.square, A),
        ("softmax", lambda t: t.softmax(1),
         lambda a: np.exp(a) / np.exp(a).sum(1, keepdims=True), A),
        ("log_softmax", lambda t: t.log_softmax(-1),
         lambda a: a - np.log(np.exp(a).sum(-1, keepdims=True)), A),
        ("cumsum", lambda t: t.cumsum(1), lambda a: np.cumsum(a, 1), A),
    ],
)
def test_unary(name, fn, ref, data):
    close(fn(seam.tensor(data)), ref(data), rtol=1e-5, atol=1e-5)


def test_erf_and_gelu():
    import math

    x = seam.tensor(A)
    erf = np.vectorize(math.erf)(A.astype(np.float64))
    close(x.erf(), erf, atol=1e-5)
    erf_scaled = np.vectorize(math.erf)(A.astype(np.float64) / math.sqrt(2))
    close(x.gelu(), A * 0.5 * (1 + erf_scaled), atol=1e-5)
    tanh_form = 0.5 * A * (1 + np.tanh(np.sqrt(2 / np.pi) * (A + 0.044715 * A**3)))
    close(x.gelu(approximate="tanh"), tanh_form, atol=1e-5)


@pytest.mark.parametrize(
    "fn",
    [
        lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b,
        lambda a, b: a + 2, lambda a, b: 2 - a, lambda a, b: a * 0.5, lambda a, b: 3 / (a * a + 1),
        lambda a, b: abs(a) ** 1.5, lambda a, b: 2 ** a, lambda a, b: abs(a) ** b,
        lambda a, b: a + b[0:1], lambda a, b: a * b[:, 0:1],
    ],
)
def test_arithmetic_broadcasting(fn):
    close(fn(seam.tensor(A), seam.tensor(B)), fn(A, B), rtol=1e-5, atol=1e-5)


def test_functions_of_two():
    a, b = seam.tensor(A), seam.tensor(B)
    close(seam.maximum(a, b), np.maximum(A, B))
    close(seam.minimum(a, 0.1), np.minimum(A, np.float32(0.1)))
    close(seam.clamp(a, -0.5, 0.5), np.clip(A, -0.5, 0.5))
    close(seam.where(a > b, a, b), np.where(A > B, A, B))
    close(seam.where(a > 0, a, 0.0), np.where(A > 0, A, 0))
    close(a.fmod(0.3), np.fmod(A, np.float32(0.3)), atol=1e-6)
    close(seam.cat([a, b], 1), np.concatenate([A, B], 1))
    close(seam.stack([a, b], 0), np.stack([A, B], 0))


@pytest.mark.parametrize("op", ["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"])
def test_comparisons(op):
    a, b = seam.tensor(A), seam.tensor(np.where(A > 0, A, B))
    got = getattr(a, op)(b)
    assert got.dtype == seam.bool
    close(got, getattr(A, op)(np.where(A > 0, A, B)))
    close(getattr(a, op)(0.0), getattr(A, op)(np.float32(0)))


def test_logical():
    p, q = seam.tensor(A > 0), seam.tensor(B > 0)
    close(p & q, (A > 0) & (B > 0))
    close(p | q, (A > 0) | (B > 0))
    close(~p, ~(A > 0))


@pytest.mark.parametrize("shape_a,shape_b", [((3, 4), (4, 5)), ((2, 3, 4), (4, 2)), ((4,), (4,)),
                                             ((2, 3, 4), (2, 4, 5)), ((4,), (4, 3))])
def test_matmul(shape_a, shape_b):
    x = rng.standard_normal(shape_a).astype(np.float32)
    y = rng.standard_normal(shape_b).astype(np.float32)
    close(seam.tensor(x) @ seam.tensor(y), x @ y, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dim,keepdim", [(None, False), (0, False), (1, True), ((0, 1), False),
                                         (-1, False)])
def test_reductions(dim, keepdim):
    t = seam.tensor(A)
    kw = dict(keepdims=keepdim) if dim is not None else {}
    axis = dim if not isinstance(dim, list) else tuple(dim)
    close(t.sum(dim, keepdim), A.sum(axis=axis, **kw), atol=1e-5)
    close(t.mean(dim, keepdim), A.mean(axis=axis, **kw), atol=1e-6)
    close(t.amax(dim, keepdim), A.max(axis=axis, **kw))
    close(t.amin(dim, keepdim), A.min(axis=axis, **kw))
    close(seam.tensor(POS).prod(dim, keepdim), POS.prod(axis=axis, **kw), rtol=1e-5)
    close(t.var(dim, keepdim=keepdim), A.var(axis=axis, ddof=1, **kw), rtol=1e-4, atol=1e-6)
    close(t.std(dim, keepdim=keepdim), A.std(axis=axis, ddof=1, **kw), rtol=1e-4, atol=1e-6)


def test_max_min_with_indices_and_arg():
    t = seam.tensor(A)
    values, indices = t.max(1)
    close(values, A.max(1))
    assert indices.dtype == seam.int64
    close(indices, A.argmax(1))
    close(t.min(0).indices, A.argmin(0))
    assert t.argmax().item() == A.argmax()
    close(t.argmin(1, keepdim=True), A.argmin(1)[:, None])
    assert t.max().item() == pytest.approx(A.max())


def test_sort_topk():
    t = seam.tensor(A)
    v, i = t.sort(1)
    close(v, np.sort(A, 1))
    close(i, np.argsort(A, 1, kind="stable"))
    v, i = t.sort(0, descending=True)
    close(v, -np.sort(-A, 0))
    v, i = t.topk(2, 1)
    close(v, -np.sort(-A, 1)[:, :2])


def test_shapes():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = seam.tensor(x)
    close(t.reshape(4, 6), x.reshape(4, 6))
    close(t.view(-1, 4), x.reshape(-1, 4))
    close(t.transpose(0, 2), x.transpose(2, 1, 0))
    close(t.permute(1, 2, 0), x.transpose(1, 2, 0))
    close(t.T, x.T)
    close(t[0].t(), x[0].T)
    close(t.flatten(), x.flatten())
    close(t.flatten(1), x.reshape(2, 12))
    close(t.unsqueeze(1), x[:, None])
    close(t[:, :1].squeeze(1), x[:, 0])
    close(t[:1].expand(3, 3, 4), np.broadcast_to(x[:1], (3, 3, 4)))
    close(t.broadcast_to((2, 2, 3, 4)), np.broadcast_to(x, (2, 2, 3, 4)))


@pytest.mark.parametrize(
    "key",
    [1, -1, (0, 2), (slice(None), 1), (slice(1, None), slice(None, None, 2)), (Ellipsis, 1),
     (None, 0), (slice(None), None, slice(1, 3)), (0, Ellipsis, slice(-2, None)), [1, 0, 1]],
)
def test_indexing(key):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    close(seam.tensor(x)[key], x[key])


def test_index_errors():
    t = seam.tensor(A)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        t[3]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        t[::0]
    with pytest.raises(ValueError, match="unsupported index 'a'"):
        t["a"]


def test_creation_and_dtypes():
    close(seam.zeros(2, 3), np.zeros((2, 3)))
    close(seam.ones((2,), dtype=seam.float64), np.ones(2))
    assert seam.ones(2, dtype=seam.float64).dtype == seam.float64
    close(seam.full((2, 2), 7), np.full((2, 2), 7))
    assert seam.full((2,), 7).dtype == seam.int64
    assert seam.full((2,), 1.5).dtype == seam.float32
    close(seam.arange(5), np.arange(5))
    close(seam.arange(2, 11, 3), np.arange(2, 11, 3))
    close(seam.arange(0.0, 1.0, 0.25), np.arange(0, 1, 0.25))
    close(seam.eye(3), np.eye(3))
    assert seam.tensor([1, 2]).dtype == seam.int64
    assert seam.tensor([1.0]).dtype == seam.float32
    assert seam.tensor(np.zeros(2)).dtype == seam.float64
    assert seam.tensor([True]).dtype == seam.bool
    assert seam.tensor(np.zeros(2, np.int32)).dtype == seam.int32
    b = seam.tensor([1.0, 1.00390625, 3.14159], dtype=seam.bfloat16)
    assert b.dtype == seam.bfloat16
    close(b, np.array([1.0, 1.0, 3.140625], np.float32))
    close(seam.tensor(A).to(seam.int32), A.astype(np.int32))
    close(seam.tensor(A).double(), A.astype(np.float64))
    assert seam.tensor(A).long().dtype == seam.int64


def test_random():
    seam.manual_seed(3)
    a = seam.randn(1000)
    seam.manual_seed(3)
    b = seam.randn(1000)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert abs(a.numpy().mean()) < 0.15 and 0.85 < a.numpy().std() < 1.15
    u = seam.rand(1000).numpy()
    assert u.min() >= 0 and u.max() < 1 and 0.4 < u.mean() < 0.6


def test_in_place():
    t = seam.tensor(A)
    same = t
    t += 1
    t *= 2
    assert t is same
    close(t, (A + 1) * 2)
    t.zero_()
    close(t, np.zeros_like(A))


def test_host_reads():
    t = seam.tensor(A)
    assert t.tolist() == A.tolist()
    assert float(t[0, 0]) == pytest.approx(A[0, 0])
    assert int(seam.tensor(5)) == 5
    assert len(t) == 3
    assert [r.shape for r in t] == [(4,)] * 3
    assert "tensor(" in repr(t)
    np.testing.assert_array_equal(np.asarray(t), A)
    n = np.float32(2) * t
    assert isinstance(n, seam.Tensor)


def test_operator_fast_path_and_its_fallbacks():
    """`+ - * /` take a direct path for tensor with tensor / Python number; everything else
    (subclasses, NumPy operands, integer division, errors) goes through the bound methods."""
    x = np.array([[1.5, -2.0], [3.0, 4.5]], np.float32)
    t = seam.tensor(x)
    for got, want in [(t + t, x + x), (t - 2, x - 2), (3 - t, 3 - x), (t * 0.5, x * 0.5),
                      (2.0 / t, 2.0 / x), (t / t, x / x), (np.float32(2) * t, 2 * x)]:
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    p = seam.nn.Parameter(seam.tensor(x))
    np.testing.assert_allclose((p * t).numpy(), x * x, rtol=1e-6)
    np.testing.assert_allclose((t - p).numpy(), 0 * x)
    i = seam.tensor(np.array([3, 4], np.int64))
    np.testing.assert_allclose((i / 2).numpy(), [1.5, 2.0])  # true division gives float32
    assert (i / 2).dtype == seam.float32 and (i * 2).dtype == seam.int64
    with pytest.raises(seam.InvalidArgumentError, match="not an integer"):
        i * 0.5
    with pytest.raises(TypeError):
        t + "a"
    w = seam.tensor(x, requires_grad=True)
    (w * 2.0 + w * w).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 + 2 * x, rtol=1e-6)
