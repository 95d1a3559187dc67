"""seam.data: the data sets the C++ API reads, and the C++ examples' shuffle."""

from . import _C

FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist"


def fashion_mnist(train=True, dir=FASHION_MNIST_DIR):
    """(images, labels) as NumPy arrays: float32 [n, 784] in [0, 1] and int32 [n]; from
    Debian's dataset-fashion-mnist files by default."""
    return _C.fashion_mnist(bool(train), str(dir))


class Shuffler:
    """Epoch orders as the C++ examples draw them (seam::data::shuffled_order): a
    std::mt19937_64 seeded with `seed`, each permutation(n) std::shuffle of 0..n-1 with it.
    The same seed gives the same orders in C++ and in Python (not NumPy's)."""

    def __init__(self, seed):
        self._rng = _C.Shuffler(int(seed) & (2**64 - 1))

    def permutation(self, count):
        """The next epoch's order: an int64 NumPy array holding 0..count-1 shuffled."""
        return self._rng.permutation(int(count))
