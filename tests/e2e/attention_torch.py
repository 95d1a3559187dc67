"""Checks seam's TransformerBlock against PyTorch's modules, for tests/e2e/attention_test.cc:

  attention_torch.py FILE   FILE is a safetensors file seam wrote holding, for each prefix P
                            in "causal" and "full", a block's state dict under "P.block.",
                            its input "P.x" [N, L, E] and seam's output "P.y" (float64), and
                            the head count "P.heads" (int64 scalar)

For each prefix it builds the PyTorch equivalent (LayerNorm ln_1, MultiheadAttention attn with
batch_first=True, LayerNorm ln_2, Sequential mlp of Linear, GELU, Linear), loads the state dict
strictly, runs x through it in float64 and prints "P max_abs_diff D". Exit status 0 when every
difference is below 1e-10, 1 otherwise, 2 when torch is missing (the test then skips).
"""
import json
import struct
import sys

try:
    import numpy as np
    import torch
except ImportError:
    sys.exit(2)

DTYPES = {"F32": "<f4", "F64": "<f8", "I32": "<i4", "I64": "<i8"}


def read(path):
    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(length).decode("utf-8"))
        data = f.read()
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        array = np.frombuffer(data[begin:end], dtype=DTYPES[entry["dtype"]])
        tensors[name] = torch.from_numpy(array.reshape(entry["shape"]).copy())
    return tensors


class Block(torch.nn.Module):
    def __init__(self, width, heads, causal):
        super().__init__()
        self.causal = causal
        self.ln_1 = torch.nn.LayerNorm(width)
        self.attn = torch.nn.MultiheadAttention(width, heads, batch_first=True)
        self.ln_2 = torch.nn.LayerNorm(width)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(width, 4 * width), torch.nn.GELU(),
                                       torch.nn.Linear(4 * width, width))

    def forward(self, x):
        length = x.shape[1]
        mask = None
        if self.causal:  # True where attention is not allowed: the upper triangle
            mask = torch.ones(length, length, dtype=torch.bool).triu(1)
        h = self.ln_1(x)
        h = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return h + self.mlp(self.ln_2(h))


def main():
    tensors = read(sys.argv[1])
    ok = True
    for prefix in ("causal", "full"):
        x, y = tensors[prefix + ".x"], tensors[prefix + ".y"]
        heads = int(tensors[prefix + ".heads"])
        state = {name[len(prefix) + 7:]: t for name, t in tensors.items()
                 if name.startswith(prefix + ".block.")}
        block = Block(x.shape[-1], heads, prefix == "causal").double()
        block.load_state_dict(state, strict=True)
        with torch.no_grad():
            diff = (block(x) - y).abs().max().item()
        print(prefix, "max_abs_diff", diff)
        ok = ok and diff < 1e-10
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
