"""torch.nn.MultiheadAttention over seam's ops: PyTorch's parameter names, shapes, initial
values' distributions, masks and batch_first."""

import math

from .. import _C
from .._errors import InvalidArgumentError
from .._tensor import arange, where, zeros
from . import functional as F
from .modules import Linear, Module, Parameter, _uniform


def _to_additive(mask, like, what):
    """A bool mask (True: not attended) or a float mask (added) as an additive float mask."""
    if mask.dtype == _C.dtype.bool:
        neg = _C.full([], float("-inf"), like.dtype)
        return where(mask, neg._broadcast_to(list(mask.shape)),
                     zeros(list(mask.shape), dtype=like.dtype))
    if not mask.dtype.is_floating_point:
        raise InvalidArgumentError(f"MultiheadAttention: {what} must be bool or floating, got "
                                   f"{mask.dtype}")
    return mask.to(like.dtype)


class MultiheadAttention(Module):
    """torch.nn.MultiheadAttention(embed_dim, num_heads, dropout, bias, batch_first):
    in_proj_weight [3E, E] (Xavier-uniform), in_proj_bias [3E] (zeros), out_proj (a Linear,
    its bias zeros). Inputs [L, N, E] ([N, L, E] with batch_first, or unbatched [L, E]);
    returns (output, attention weights averaged over the heads, or None)."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, dtype=None):
        super().__init__()
        if add_bias_kv or add_zero_attn:
            raise InvalidArgumentError(
                "MultiheadAttention: add_bias_kv and add_zero_attn are not supported")
        if (kdim not in (None, embed_dim)) or (vdim not in (None, embed_dim)):
            raise InvalidArgumentError(
                f"MultiheadAttention: kdim and vdim other than embed_dim ({embed_dim}) are not "
                f"supported, got kdim={kdim}, vdim={vdim}")
        if num_heads <= 0 or embed_dim % num_heads != 0:
            raise InvalidArgumentError(
                f"MultiheadAttention: embed_dim ({embed_dim}) must be divisible by num_heads "
                f"({num_heads})")
        if not 0 <= dropout < 1:
            raise InvalidArgumentError(f"MultiheadAttention: dropout must be in [0, 1), got {dropout}")
        dtype = dtype or _C.dtype.float32
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.dropout, self.batch_first = dropout, batch_first
        self.kdim = self.vdim = embed_dim
        self._qkv_same_embed_dim = True
        self.in_proj_weight = Parameter(
            _uniform([3 * embed_dim, embed_dim], math.sqrt(6.0 / (4 * embed_dim)), dtype))
        if bias:
            self.in_proj_bias = Parameter(zeros(3 * embed_dim, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, dtype=dtype)
        if bias:
            self.out_proj.bias = Parameter(zeros(embed_dim, dtype=dtype))

    def _project(self, x, part):
        e = self.embed_dim
        w = self.in_proj_weight[part * e:(part + 1) * e]
        b = None if self.in_proj_bias is None else self.in_proj_bias[part * e:(part + 1) * e]
        n, length = x.shape[0], x.shape[1]
        heads = F.linear(x, w, b).reshape(n, length, self.num_heads, self.head_dim)
        return heads.permute(0, 2, 1, 3)  # [N, H, L, D]

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        unbatched = query.ndim == 2
        if unbatched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif self.batch_first:
            query, key, value = query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1)
        # [L, N, E] from here on, then [N, ...] inside.
        for name, t in (("query", query), ("key", key), ("value", value)):
            if t.ndim != 3 or t.shape[2] != self.embed_dim:
                raise InvalidArgumentError(
                    f"MultiheadAttention: {name} must end in embed_dim {self.embed_dim}, got "
                    f"shape {list(t.shape)}")
        q = self._project(query.transpose(0, 1), 0)
        k = self._project(key.transpose(0, 1), 1)
        v = self._project(value.transpose(0, 1), 2)
        n, length, source = q.shape[0], q.shape[2], k.shape[2]
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.head_dim))  # [N, H, L, S]
        if attn_mask is None and is_causal:
            rows = arange(length).reshape(length, 1)
            attn_mask = arange(source).reshape(1, source) > rows
        if attn_mask is not None:
            add = _to_additive(attn_mask, scores, "attn_mask")
            if add.ndim == 3:  # [N * H, L, S]
                add = add.reshape(n, self.num_heads, length, source)
            scores = scores + add
        if key_padding_mask is not None:
            add = _to_additive(key_padding_mask, scores, "key_padding_mask")
            scores = scores + add.reshape(n, 1, 1, source)
        weights = scores.softmax(-1)
        if self.training and self.dropout > 0:
            weights = F.dropout(weights, self.dropout, True)
        out = (weights @ v).permute(0, 2, 1, 3).reshape(n, length, self.embed_dim)
        out = self.out_proj(out)  # [N, L, E]
        if unbatched:
            out = out.squeeze(0)
        elif not self.batch_first:
            out = out.transpose(0, 1)
        if not need_weights:
            return out, None
        w = weights.mean(1) if average_attn_weights else weights
        return out, (w.squeeze(0) if unbatched else w)

    def extra_repr(self):
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}"

