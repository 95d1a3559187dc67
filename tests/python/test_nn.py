"""seam.nn and seam.optim: layers against NumPy, optimizers against NumPy reference updates,
a subclassed Module that trains, state_dict round trips."""

import collections

import numpy as np
import pytest

import seam
import seam.nn as nn
import seam.nn.functional as F

rng = np.random.default_rng(5)


def test_linear_layout_and_forward():
    seam.manual_seed(0)
    layer = nn.Linear(4, 3)
    assert layer.weight.shape == (3, 4) and layer.bias.shape == (3,)
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    w, b = layer.weight.numpy(), layer.bias.numpy()
    assert np.abs(w).max() <= 0.5 and np.abs(w).std() > 0.05
    x = rng.standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(layer(seam.tensor(x)).numpy(), x @ w.T + b, rtol=1e-5, atol=1e-6)


def test_conv_pool_embedding_norms_against_numpy():
    seam.manual_seed(1)
    conv = nn.Conv2d(2, 3, 3, padding=1)
    x = rng.standard_normal((2, 2, 4, 4)).astype(np.float32)
    w, b = conv.weight.numpy(), conv.bias.numpy()
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((2, 3, 4, 4), np.float32)
    for i in range(4):
        for j in range(4):
            ref[:, :, i, j] = np.einsum("nchw,ochw->no", xp[:, :, i:i + 3, j:j + 3], w)
    ref += b[None, :, None, None]
    y = conv(seam.tensor(x))
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-4, atol=1e-5)
    pooled = nn.MaxPool2d(2)(y).numpy()
    np.testing.assert_allclose(pooled, ref.reshape(2, 3, 2, 2, 2, 2).max((3, 5)), rtol=1e-5)
    avg = nn.AvgPool2d(2)(y).numpy()
    np.testing.assert_allclose(avg, ref.reshape(2, 3, 2, 2, 2, 2).mean((3, 5)), rtol=1e-4, atol=1e-6)

    emb = nn.Embedding(10, 3)
    ids = np.array([[1, 4], [9, 1]])
    np.testing.assert_allclose(emb(seam.tensor(ids)).numpy(), emb.weight.numpy()[ids])

    ln = nn.LayerNorm(4)
    z = rng.standard_normal((3, 4)).astype(np.float32)
    ref_ln = (z - z.mean(1, keepdims=True)) / np.sqrt(z.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(ln(seam.tensor(z)).numpy(), ref_ln, rtol=1e-4, atol=1e-5)

    bn = nn.BatchNorm2d(2)
    out = bn(seam.tensor(x)).numpy()
    mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    ref_bn = (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(out, ref_bn, rtol=1e-4, atol=1e-5)
    n = x.size / 2
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * mean, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.9 + 0.1 * var * n / (n - 1), rtol=1e-5)
    assert bn.num_batches_tracked.item() == 1
    assert [k for k in bn.state_dict()] == ["weight", "bias", "running_mean", "running_var",
                                            "num_batches_tracked"]
    bn.eval()
    ref_eval = (x - bn.running_mean.numpy()[None, :, None, None]) / np.sqrt(
        bn.running_var.numpy()[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(bn(seam.tensor(x)).numpy(), ref_eval, rtol=1e-4, atol=1e-5)


def test_dropout_train_and_eval():
    seam.manual_seed(2)
    d = nn.Dropout(0.5)
    y = d(seam.ones(1000)).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 300 < (y == 0).sum() < 700
    d.eval()
    np.testing.assert_array_equal(d(seam.ones(10)).numpy(), np.ones(10))
    with pytest.raises(ValueError, match="p must be in"):
        nn.Dropout(1.5)


def test_losses_against_numpy():
    logits = rng.standard_normal((4, 5)).astype(np.float32)
    labels = np.array([0, 4, 2, 2])
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    ce = -logp[np.arange(4), labels]
    t, y = seam.tensor(logits), seam.tensor(labels)
    assert nn.CrossEntropyLoss()(t, y).item() == pytest.approx(ce.mean(), rel=1e-5)
    assert F.cross_entropy(t, y, reduction="sum").item() == pytest.approx(ce.sum(), rel=1e-5)
    assert F.nll_loss(t.log_softmax(1), y).item() == pytest.approx(ce.mean(), rel=1e-5)
    a, b = logits, logits[::-1].copy()
    assert nn.MSELoss()(seam.tensor(a), seam.tensor(b)).item() == pytest.approx(((a - b) ** 2).mean(), rel=1e-5)
    assert nn.L1Loss()(seam.tensor(a), seam.tensor(b)).item() == pytest.approx(np.abs(a - b).mean(), rel=1e-5)
    p = (b > 0).astype(np.float32)
    bce = np.maximum(a, 0) - a * p + np.log1p(np.exp(-np.abs(a)))
    assert nn.BCEWithLogitsLoss()(seam.tensor(a), seam.tensor(p)).item() == pytest.approx(bce.mean(), rel=1e-5)


def reference_updates(kind, w, grads, lr, **kw):
    """NumPy versions of the optimizers' updates (PyTorch's formulas)."""
    w = w.copy()
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        if kind == "sgd":
            g = g + kw["weight_decay"] * w
            m = kw["momentum"] * m + g if t > 1 else g
            w = w - lr * m
        else:
            b1, b2, eps, wd = 0.9, 0.999, 1e-8, kw["weight_decay"]
            if kind == "adamw":
                w = w * (1 - lr * wd)
            else:
                g = g + wd * w
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            mhat, vhat = m / (1 - b1**t), v / (1 - b2**t)
            w = w - lr * mhat / (np.sqrt(vhat) + eps)
    return w


@pytest.mark.parametrize("kind,make,kw", [
    ("sgd", lambda p: seam.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01),
     dict(momentum=0.9, weight_decay=0.01)),
    ("adam", lambda p: seam.optim.Adam(p, lr=0.05, weight_decay=0.01), dict(weight_decay=0.01)),
    ("adamw", lambda p: seam.optim.AdamW(p, lr=0.05), dict(weight_decay=0.01)),
])
def test_optimizers_match_reference_updates(kind, make, kw):
    w0 = rng.standard_normal(6)
    target = rng.standard_normal(6)
    w = nn.Parameter(seam.tensor(w0))
    opt = make([w])
    grads = []
    for _ in range(4):
        opt.zero_grad()
        loss = ((w - seam.tensor(target)) ** 2).sum()
        loss.backward()
        grads.append(w.grad.numpy().copy())
        opt.step()
        seam.sync()
    # The gradients seen were those of the weights the reference also has at each step.
    ref = reference_updates(kind, w0, grads, opt.param_groups[0]["lr"], **kw)
    # (The hyperparameters are float32 in the C++ optimizers: agreement to ~1e-7.)
    np.testing.assert_allclose(w.numpy(), ref, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(grads[-1], 2 * (reference_updates(kind, w0, grads[:-1], opt.param_groups[0]["lr"], **kw) - target), rtol=1e-6, atol=1e-7)


class TwoLayer(nn.Module):
    """A subclassed Module as users write them."""

    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(2, 16)
        self.out = nn.Linear(16, 1)
        self.scale = nn.Parameter(seam.tensor([1.0]))
        self.register_buffer("calls", seam.tensor(0))

    def forward(self, x):
        with seam.no_grad():
            self.calls += 1
        return self.out(self.hidden(x).tanh()) * self.scale


def test_subclassed_module_trains_and_round_trips(tmp_path):
    seam.manual_seed(4)
    model = TwoLayer()
    names = [n for n, _ in model.named_parameters()]
    assert names == ["scale", "hidden.weight", "hidden.bias", "out.weight", "out.bias"]
    x = rng.uniform(-1, 1, (64, 2)).astype(np.float32)
    y = (np.sin(2 * x[:, :1]) * x[:, 1:]).astype(np.float32)
    tx, ty = seam.tensor(x), seam.tensor(y)
    opt = seam.optim.Adam(model.parameters(), lr=0.02)
    losses = []
    for _ in range(150):
        opt.zero_grad()
        loss = F.mse_loss(model(tx), ty)
        loss.backward()
        opt.step()
        seam.sync()
        losses.append(loss.item())
    assert losses[-1] < 0.1 * losses[0] and losses[-1] < 0.01, (losses[0], losses[-1])
    assert model.calls.item() == 150

    state = model.state_dict()
    assert list(state) == names + ["calls"]
    seam.save_file(state, tmp_path / "model.safetensors", {"step": "150"})
    loaded, meta = seam.load_file(tmp_path / "model.safetensors", with_metadata=True)
    assert meta == {"step": "150"}
    fresh = TwoLayer()
    assert not np.allclose(fresh.hidden.weight.numpy(), model.hidden.weight.numpy())
    fresh.load_state_dict(loaded)
    np.testing.assert_array_equal(fresh(tx).numpy(), model(tx).numpy())

    bad = collections.OrderedDict(loaded)
    bad["out.weight"] = seam.zeros(2, 16)
    del bad["scale"]
    bad["extra"] = seam.zeros(1)
    before = fresh.out.weight.numpy()
    with pytest.raises(seam.InvalidArgumentError) as e:
        fresh.load_state_dict(bad)
    msg = str(e.value)
    assert "missing: scale" in msg and "unexpected: extra" in msg and "out.weight" in msg
    np.testing.assert_array_equal(fresh.out.weight.numpy(), before)


def test_sequential_mlp_sgd_reaches_known_loss():
    # y = 3 x0 - 2 x1 + 0.5: an exact linear fit, so SGD drives the loss to ~0.
    seam.manual_seed(9)
    x = rng.standard_normal((128, 2)).astype(np.float32)
    y = (x @ np.array([[3.0], [-2.0]], np.float32) + 0.5).astype(np.float32)
    model = nn.Sequential(nn.Linear(2, 1))
    opt = seam.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    for _ in range(100):
        opt.zero_grad()
        loss = F.mse_loss(model(seam.tensor(x)), seam.tensor(y))
        loss.backward()
        opt.step()
        seam.sync()
    assert loss.item() < 1e-6
    np.testing.assert_allclose(model[0].weight.numpy(), [[3.0, -2.0]], atol=1e-3)
    assert [n for n, _ in model.named_parameters()] == ["0.weight", "0.bias"]
    assert "Linear" in repr(model)


def test_optimizer_state_dict_and_lr_change():
    w = nn.Parameter(seam.tensor([1.0, 2.0]))
    opt = seam.optim.Adam([w], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    sd = opt.state_dict()
    assert "state.0.exp_avg" in sd and sd["param_groups.0.lr"].item() == pytest.approx(0.1)
    opt.param_groups[0]["lr"] = 0.5
    assert opt.state_dict()["param_groups.0.lr"].item() == pytest.approx(0.5)


def test_deepcopy_of_a_module_is_independent():
    import copy

    seam.manual_seed(8)
    model = nn.Sequential(nn.Linear(3, 2))
    clone = copy.deepcopy(model)
    assert isinstance(clone[0].weight, nn.Parameter) and clone[0].weight.requires_grad
    np.testing.assert_array_equal(clone[0].weight.numpy(), model[0].weight.numpy())
    with seam.no_grad():
        clone[0].weight -= 1
    assert not np.array_equal(clone[0].weight.numpy(), model[0].weight.numpy())


@pytest.mark.parametrize("kind,make,kw", [
    ("sgd", lambda p: seam.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01),
     dict(momentum=0.9, weight_decay=0.01)),
    ("adam", lambda p: seam.optim.Adam(p, lr=0.05, weight_decay=0.01), dict(weight_decay=0.01)),
    ("adamw", lambda p: seam.optim.AdamW(p, lr=0.05), dict(weight_decay=0.01)),
])
def test_optimizers_skip_parameters_without_grad(kind, make, kw):
    """PyTorch's rule: a parameter whose .grad is None is not updated (no weight decay, no
    momentum), and its Adam step count starts at its own first gradient."""
    a0, b0 = rng.standard_normal(4), rng.standard_normal(3)
    a, b = nn.Parameter(seam.tensor(a0)), nn.Parameter(seam.tensor(b0))
    opt = make([a, b])
    grads_a, grads_b = [], []
    for step in range(4):
        opt.zero_grad()
        loss = (a * a).sum() if step == 0 else (a * a).sum() + (b * b * b).sum()
        loss.backward()
        grads_a.append(a.grad.numpy().copy())
        if step == 0:
            assert b.grad is None
        else:
            grads_b.append(b.grad.numpy().copy())
        opt.step()
        seam.sync()
        if step == 0:
            np.testing.assert_array_equal(b.numpy(), b0)  # skipped: not moved at all
    lr = opt.param_groups[0]["lr"]
    np.testing.assert_allclose(a.numpy(), reference_updates(kind, a0, grads_a, lr, **kw),
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(b.numpy(), reference_updates(kind, b0, grads_b, lr, **kw),
                               rtol=1e-6, atol=1e-7)


def test_optimizer_state_dict_over_several_parameters():
    a, b = nn.Parameter(seam.tensor([1.0, 2.0])), nn.Parameter(seam.tensor([[3.0], [4.0]]))
    opt = seam.optim.Adam([a, b], lr=0.1)
    ((a * a).sum() + (b * b).sum()).backward()
    opt.step()
    sd = opt.state_dict()
    assert sorted(k for k in sd if k.startswith("state.")) == [
        f"state.{i}.{key}" for i in (0, 1) for key in ("exp_avg", "exp_avg_sq", "step")]
    assert sd["state.1.exp_avg"].shape == (2, 1)
    np.testing.assert_allclose(sd["state.1.exp_avg"].numpy(), 0.1 * 2 * np.array([[3.0], [4.0]]),
                               rtol=1e-6)
    fresh = seam.optim.Adam([a, b], lr=0.5)
    fresh.load_state_dict(sd)
    assert fresh.param_groups[0]["lr"] == pytest.approx(0.1)
    np.testing.assert_array_equal(fresh.state_dict()["state.1.exp_avg"].numpy(),
                                  sd["state.1.exp_avg"].numpy())
    bad = dict(sd)
    bad["state.0.exp_avg"] = seam.tensor([9.0, 9.0])  # would load, then be put back
    bad["state.1.exp_avg"] = seam.zeros(3)
    before = fresh.state_dict()["state.0.exp_avg"].numpy()
    with pytest.raises(ValueError, match="parameter 1: .*exp_avg"):
        fresh.load_state_dict(bad)
    np.testing.assert_array_equal(fresh.state_dict()["state.0.exp_avg"].numpy(), before)
    with pytest.raises(ValueError, match="unexpected 'state.7.exp_avg'"):
        fresh.load_state_dict({**sd, "state.7.exp_avg": seam.zeros(2)})
