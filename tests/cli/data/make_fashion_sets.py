#!/usr/bin/env python3
"""make_fashion_sets.py OUT: small Fashion-MNIST-shaped data sets for the example's tests.

Writes OUT/<set>/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz for
  tiny    128 training and 16 test images of 28x28 (one batch: trains in a second)
  four    512 training and 16 test images (four batches: an epoch has a middle)
  27x27   images of 27x27 (the example used to read past its buffer)
  empty   no images at all (the example used to print "loss -nan" and exit 0)
  short   100 training images, fewer than one batch of 128
"""
import gzip
import os
import struct
import sys


def idx(dims, values):
    return struct.pack(">BBBB", 0, 0, 8, len(dims)) + b"".join(
        struct.pack(">I", d) for d in dims) + bytes(values)


def write_set(folder, prefix, count, rows, cols):
    pixels = [(i * 37) % 256 for i in range(count * rows * cols)]
    labels = [i % 10 for i in range(count)]
    for name, data in ((f"{prefix}-images-idx3-ubyte.gz", idx([count, rows, cols], pixels)),
                       (f"{prefix}-labels-idx1-ubyte.gz", idx([count], labels))):
        with gzip.open(os.path.join(folder, name), "wb") as f:
            f.write(data)


def main():
    out = sys.argv[1]
    sets = {"tiny": (128, 16, 28), "four": (512, 16, 28), "27x27": (128, 16, 27),
            "empty": (0, 0, 28), "short": (100, 16, 28)}
    for name, (train, test, side) in sets.items():
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        write_set(folder, "train", train, side, side)
        write_set(folder, "t10k", test, side, side)


if __name__ == "__main__":
    main()
