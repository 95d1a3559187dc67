"""Reads and writes safetensors files with NumPy and the json module only (no safetensors
library), for tests/e2e/checkpoint_test.cc:

  safetensors_numpy.py read FILE    prints "<name> <dtype> <shape> <sum> <first>" per tensor
                                    and "meta <key> <value>" per metadata entry
  safetensors_numpy.py write FILE   writes tensors of every dtype the test expects
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
        first = array.flat[0] if array.size else 0
        print(name, entry["dtype"], "x".join(str(d) for d in entry["shape"]) or "scalar",
              repr(float(array.sum())), repr(float(first)))


def write(path):
    tensors = {
        "fc.weight": np.arange(6, dtype="<f4").reshape(2, 3) / 4,
        "fc.bias": np.array([-1.5, 2.5], dtype="<f8"),
        "steps": np.array([[7]], dtype="<i4"),
    }
    header, offset, blobs = {"__metadata__": {"written_by": "numpy"}}, 0, []
    for name, array in tensors.items():
        blob = array.tobytes()
        dtype = {"float32": "F32", "float64": "F64", "int32": "I32"}[str(array.dtype)]
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header).encode("utf-8")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


if __name__ == "__main__":
    {"read": read, "write": write}[sys.argv[1]](sys.argv[2])
