"""Seeds for the host-drawn initial values (randn, layer initialisation): the C++ sequence
seam::next_init_seed, which seam.manual_seed (seam::manual_seed) restarts, so a program that
seeds once gets the same parameters and draws every run, and the same ones as a C++ program
that builds the same layers in the same order (seam::nn::Linear without a seed)."""

from . import _C


def next_seed():
    """A new seed for one host draw."""
    return _C.next_init_seed()
