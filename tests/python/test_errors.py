"""seam::Error -> Python exceptions: the status-code table (docs/python.md, "Errors"), the
C++ message kept, and bad input raising instead of aborting."""

import subprocess
import sys

import numpy as np
import pytest

import seam

TABLE = [
    (1, seam.CancelledError, RuntimeError),
    (2, seam.UnknownError, RuntimeError),
    (3, seam.InvalidArgumentError, ValueError),
    (4, seam.DeadlineExceededError, TimeoutError),
    (5, seam.NotFoundError, FileNotFoundError),
    (6, seam.AlreadyExistsError, FileExistsError),
    (7, seam.PermissionDeniedError, PermissionError),
    (8, seam.ResourceExhaustedError, MemoryError),
    (9, seam.FailedPreconditionError, RuntimeError),
    (10, seam.AbortedError, RuntimeError),
    (11, seam.OutOfRangeError, IndexError),
    (12, seam.UnimplementedError, NotImplementedError),
    (13, seam.InternalError, RuntimeError),
    (14, seam.UnavailableError, ConnectionError),
    (15, seam.DataLossError, ValueError),
    (16, seam.UnauthenticatedError, PermissionError),
]


@pytest.mark.parametrize("code,cls,builtin", TABLE)
def test_every_status_code_maps(code, cls, builtin):
    with pytest.raises(cls) as e:
        seam._C._raise_error(code, f"message {code}")
    assert isinstance(e.value, seam.SeamError) and isinstance(e.value, builtin)
    assert str(e.value) == f"message {code}"
    assert e.value.code == seam._C.error_code_name(code)


def test_docs_table_lists_every_class():
    import os

    doc = os.path.join(os.environ.get("SEAM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                       "docs", "python.md")
    text = open(doc).read()
    for code, cls, builtin in TABLE:
        row = f"| {seam._C.error_code_name(code)} | `seam.{cls.__name__}` | `{builtin.__name__}` |"
        assert row in text, row


def test_bad_shape_and_dtype():
    with pytest.raises(ValueError, match=r"reshape: f32\[2,3\] has 6 elements; the target \[4\]"):
        seam.zeros(2, 3).reshape(4)
    with pytest.raises(seam.InvalidArgumentError, match="element types differ"):
        seam.zeros(2) + seam.zeros(2, dtype=seam.int32)
    with pytest.raises(ValueError, match="float16 has no seam dtype"):
        seam.tensor(np.zeros(2, np.float16))
    with pytest.raises(ValueError, match="matmul"):
        seam.zeros(2, 3) @ seam.zeros(2, 3)
    with pytest.raises(ValueError):
        seam.zeros(2, dtype=seam.int32) + 1.5


def test_files_that_are_not_safetensors(tmp_path):
    with pytest.raises(seam.NotFoundError, match="no-such-file"):
        seam.load_file(tmp_path / "no-such-file.safetensors")
    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"this is not a safetensors file at all")
    with pytest.raises(seam.DataLossError) as e:
        seam.load_file(junk)
    assert str(junk) in str(e.value)
    with pytest.raises(seam.InvalidArgumentError):
        seam.save_file({"b": seam.tensor([True])}, tmp_path / "bool.safetensors")


def test_bad_environment_raises_instead_of_aborting():
    # An unknown device: the first device use fails with the registry's message (with
    # PJRT_DYNAMIC_PLUGINS on, as the import sets it: the plugin look-up's miss), and the
    # process goes on (then exits 0).
    code = (
        "import seam\n"
        "try:\n"
        "    (seam.ones(2) * 3).numpy()\n"
        "except seam.SeamError as e:\n"
        "    print(type(e).__name__, e)\n"
    )
    env = {"PJRT_DEVICE": "NOPE", "PATH": "/usr/bin:/bin"}
    import os

    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert "FailedPreconditionError No PjRtPlugin registered for: NOPE." in out.stdout
