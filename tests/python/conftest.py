"""Makes the build tree's package importable when pytest runs by hand (ctest sets
PYTHONPATH itself): SEAM_PYTHON_DIR, else build/python beside the sources."""

import importlib.util
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_default = os.path.join(_here, "..", "..", "build", "python")
_dir = os.environ.get("SEAM_PYTHON_DIR", _default)
if importlib.util.find_spec("seam") is None and os.path.isdir(_dir):
    sys.path.insert(0, _dir)
os.environ.setdefault("PJRT_DEVICE", "CPU")
