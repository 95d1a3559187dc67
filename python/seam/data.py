"""seam.data: the data sets the C++ API reads."""

from . import _C

FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist"


def fashion_mnist(train=True, dir=FASHION_MNIST_DIR):
    """(images, labels) as NumPy arrays: float32 [n, 784] in [0, 1] and int32 [n]; from
    Debian's dataset-fashion-mnist files by default."""
    return _C.fashion_mnist(bool(train), str(dir))
