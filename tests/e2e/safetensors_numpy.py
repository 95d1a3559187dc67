"""Reads and writes safetensors files with NumPy and the json module only (no safetensors
library), for tests/e2e/checkpoint_test.cc:

  safetensors_numpy.py read FILE    prints "<name> <dtype> <shape> <sum> <first>" per tensor
                                    and "meta <key> <value>" per metadata entry (floats as
                                    Python floats; I64 exactly, as Python ints; BF16 decoded
                                    from its raw uint16 bits to float32 first)
  safetensors_numpy.py write FILE   writes tensors of every dtype the test expects

NumPy has no bfloat16: a BF16 tensor is its raw uint16 bits (the upper half of each
float32's bits), here rounded from float32 to nearest, ties to even, with integer arithmetic.
"""
import json
import struct
import sys

import numpy as np

DTYPES = {"F32": "<f4", "F64": "<f8", "I32": "<i4", "I64": "<i8", "U8": "u1", "BF16": "<u2"}


def read(path):
    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(length).decode("utf-8"))
        data = f.read()
    for key, value in sorted(header.get("__metadata__", {}).items()):
        print("meta", key, value)
    for name in sorted(k for k in header if k != "__metadata__"):
        entry = header[name]
        begin, end = entry["data_offsets"]
        array = np.frombuffer(data[begin:end], dtype=DTYPES[entry["dtype"]]).reshape(entry["shape"])
        if entry["dtype"] == "BF16":
            array = (array.astype("<u4") << 16).view("<f4")
        exact = int if entry["dtype"] == "I64" else float
        first = array.flat[0] if array.size else 0
        print(name, entry["dtype"], "x".join(str(d) for d in entry["shape"]) or "scalar",
              repr(exact(array.sum())), repr(exact(first)))


def to_bf16_bits(values):
    bits = np.asarray(values, dtype="<f4").view("<u4").astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype("<u2")


def write(path):
    tensors = {
        "fc.weight": np.arange(6, dtype="<f4").reshape(2, 3) / 4,
        "fc.bias": np.array([-1.5, 2.5], dtype="<f8"),
        "steps": np.array([[7]], dtype="<i4"),
        "emb.bf16": to_bf16_bits([0.1, -1.0, 3.0, 65504.0, 1.00390625, 1.01171875]).reshape(3, 2),
        "ids.i64": np.array([2**40 + 7, -(2**62), 2**60 + 1], dtype="<i8"),
    }
    header, offset, blobs = {"__metadata__": {"written_by": "numpy"}}, 0, []
    for name, array in tensors.items():
        blob = array.tobytes()
        dtype = {"float32": "F32", "float64": "F64", "int32": "I32", "int64": "I64",
                 "uint16": "BF16"}[str(array.dtype)]
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header).encode("utf-8")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


if __name__ == "__main__":
    {"read": read, "write": write}[sys.argv[1]](sys.argv[2])
