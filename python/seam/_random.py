"""Seeds for the host-drawn initial values (randn, layer initialisation).

seam.manual_seed(s) sets the device generator (seam::manual_seed) and restarts this
sequence, so a program that seeds once gets the same parameters and draws every run.
"""

_DEFAULT_SEED = 67280421310721  # PyTorch's default seed, as seam::manual_seed's default
_state = {"seed": _DEFAULT_SEED, "count": 0}


def reset(seed):
    _state["seed"] = int(seed) & (2**64 - 1)
    _state["count"] = 0


def next_seed():
    """A new seed for one host draw (mixed with splitmix64's constants)."""
    _state["count"] += 1
    z = (_state["seed"] + _state["count"] * 0x9E3779B97F4A7C15) & (2**64 - 1)
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
    return z ^ (z >> 31)
