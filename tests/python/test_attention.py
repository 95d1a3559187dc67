"""seam.nn.MultiheadAttention: PyTorch's parameter names and shapes, the forward pass against a
NumPy reference (batch_first either way, unbatched, masks, per-head weights), gradients, and
the same outputs as torch.nn.MultiheadAttention with the same weights where PyTorch is
installed."""

import numpy as np
import pytest

import seam
from seam import nn

rng = np.random.default_rng(21)
E, H = 8, 2


def _softmax(x):
    x = x - x.max(-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(-1, keepdims=True)


def reference(mha, q, k, v, add_mask=None, average=True):
    """NumPy multi-head attention on [N, L, E] inputs with an additive mask [N, H, L, S]."""
    w = mha.in_proj_weight.numpy().astype(np.float64)
    b = mha.in_proj_bias.numpy().astype(np.float64)
    wo, bo = mha.out_proj.weight.numpy(), mha.out_proj.bias.numpy()
    d = E // H

    def heads(x, i):
        y = x @ w[i * E:(i + 1) * E].T + b[i * E:(i + 1) * E]
        return y.reshape(x.shape[0], x.shape[1], H, d).transpose(0, 2, 1, 3)

    scores = heads(q, 0) @ heads(k, 1).transpose(0, 1, 3, 2) / np.sqrt(d)
    if add_mask is not None:
        scores = scores + add_mask
    p = _softmax(scores)
    out = (p @ heads(v, 2)).transpose(0, 2, 1, 3).reshape(q.shape[0], q.shape[1], E)
    return out @ wo.T + bo, (p.mean(1) if average else p)


def _inputs(n=3, length=4, source=5):
    q = rng.standard_normal((n, length, E)).astype(np.float32)
    k = rng.standard_normal((n, source, E)).astype(np.float32)
    v = rng.standard_normal((n, source, E)).astype(np.float32)
    return q, k, v


def test_parameter_names_and_shapes():
    mha = nn.MultiheadAttention(E, H)
    shapes = {name: tuple(p.shape) for name, p in mha.named_parameters()}
    assert shapes == {"in_proj_weight": (3 * E, E), "in_proj_bias": (3 * E,),
                      "out_proj.weight": (E, E), "out_proj.bias": (E,)}
    np.testing.assert_array_equal(mha.in_proj_bias.numpy(), 0)
    np.testing.assert_array_equal(mha.out_proj.bias.numpy(), 0)
    bound = np.sqrt(6 / (4 * E))  # Xavier-uniform over [3E, E]
    assert np.abs(mha.in_proj_weight.numpy()).max() <= bound
    with pytest.raises(ValueError, match="divisible by num_heads"):
        nn.MultiheadAttention(E, 3)


@pytest.mark.parametrize("batch_first", [False, True])
def test_forward_matches_numpy(batch_first):
    seam.manual_seed(5)
    mha = nn.MultiheadAttention(E, H, batch_first=batch_first)
    with seam.no_grad():
        mha.in_proj_bias.copy_(seam.tensor(rng.standard_normal(3 * E).astype(np.float32)))
    q, k, v = _inputs()
    args = [seam.tensor(a if batch_first else a.transpose(1, 0, 2)) for a in (q, k, v)]
    out, weights = mha(*args)
    ref_out, ref_w = reference(mha, q, k, v)
    got = out.numpy() if batch_first else out.numpy().transpose(1, 0, 2)
    np.testing.assert_allclose(got, ref_out, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(weights.numpy(), ref_w, rtol=1e-4, atol=1e-6)
    out2, none = mha(*args, need_weights=False)
    assert none is None
    np.testing.assert_allclose(out2.numpy(), out.numpy(), rtol=1e-6)


def test_masks_unbatched_and_per_head_weights():
    mha = nn.MultiheadAttention(E, H, batch_first=True)
    q, k, v = _inputs(n=2, length=4, source=5)
    attn = rng.random((4, 5)) < 0.3
    attn[:, 0] = False  # every row keeps one key
    pad = np.zeros((2, 5), bool)
    pad[1, 3:] = True
    out, w = mha(seam.tensor(q), seam.tensor(k), seam.tensor(v), attn_mask=seam.tensor(attn),
                 key_padding_mask=seam.tensor(pad), average_attn_weights=False)
    add = np.where(attn, -np.inf, 0)[None, None] + np.where(pad, -np.inf, 0)[:, None, None, :]
    ref_out, ref_w = reference(mha, q, k, v, add, average=False)
    np.testing.assert_allclose(out.numpy(), ref_out, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(w.numpy(), ref_w, rtol=1e-4, atol=1e-6)
    assert w.shape == (2, H, 4, 5) and (w.numpy()[1, :, :, 3:] == 0).all()
    float_mask = rng.standard_normal((2 * H, 4, 5)).astype(np.float32)
    out, _ = mha(seam.tensor(q), seam.tensor(k), seam.tensor(v), attn_mask=seam.tensor(float_mask))
    ref_out, _ = reference(mha, q, k, v, float_mask.reshape(2, H, 4, 5))
    np.testing.assert_allclose(out.numpy(), ref_out, rtol=1e-4, atol=1e-5)
    causal, _ = mha(seam.tensor(q), seam.tensor(q), seam.tensor(q), is_causal=True)
    ref_out, _ = reference(mha, q, q, q, np.where(np.triu(np.ones((4, 4)), 1) > 0, -np.inf, 0))
    np.testing.assert_allclose(causal.numpy(), ref_out, rtol=1e-4, atol=1e-5)
    single, w1 = mha(seam.tensor(q[0]), seam.tensor(k[0]), seam.tensor(v[0]))
    ref_out, ref_w = reference(mha, q[:1], k[:1], v[:1])
    assert single.shape == (4, E) and w1.shape == (4, 5)
    np.testing.assert_allclose(single.numpy(), ref_out[0], rtol=1e-4, atol=1e-5)


def test_gradients_reach_every_parameter_and_match_finite_differences():
    mha = nn.MultiheadAttention(E, H, batch_first=True)
    q, k, v = _inputs(n=1, length=3, source=3)
    out, _ = mha(seam.tensor(q), seam.tensor(k), seam.tensor(v))
    (out * out).sum().backward()
    for name, p in mha.named_parameters():
        assert p.grad is not None and p.grad.shape == p.shape, name
    # One entry of in_proj_weight (a key row), by central differences in float64.
    base = mha.in_proj_weight.numpy().astype(np.float64)
    i, j, h = E + 1, 2, 1e-3

    def loss(w):
        with seam.no_grad():
            mha.in_proj_weight.copy_(seam.tensor(w.astype(np.float32)))
        o, _ = reference(mha, q.astype(np.float64), k, v)
        return (o * o).sum()

    up, down = base.copy(), base.copy()
    up[i, j] += h
    down[i, j] -= h
    numeric = (loss(up) - loss(down)) / (2 * h)
    loss(base)
    assert mha.in_proj_weight.grad.numpy()[i, j] == pytest.approx(numeric, rel=2e-2, abs=1e-3)


def test_same_outputs_as_pytorch():
    try:
        import torch
    except ImportError as e:
        pytest.skip(f"python3-torch is not installed ({e}): the PyTorch comparison is skipped")
    mha = nn.MultiheadAttention(E, H)
    ref = torch.nn.MultiheadAttention(E, H)
    ref.load_state_dict({name: torch.from_numpy(p.numpy().copy())
                         for name, p in mha.state_dict().items()})
    q, k, v = (a.transpose(1, 0, 2).copy() for a in _inputs())
    pad = np.zeros((3, 5), bool)
    pad[0, 4] = True
    out, w = mha(seam.tensor(q), seam.tensor(k), seam.tensor(v), key_padding_mask=seam.tensor(pad))
    with torch.no_grad():
        t_out, t_w = ref(torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v),
                         key_padding_mask=torch.from_numpy(pad))
    np.testing.assert_allclose(out.numpy(), t_out.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(w.numpy(), t_w.numpy(), rtol=1e-4, atol=1e-6)
