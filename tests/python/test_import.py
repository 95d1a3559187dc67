"""`import seam` sets up the environment as `import torch_xla` does: PJRT_DYNAMIC_PLUGINS on
unless set; PJRT_DEVICE=CPU with one warning line on stderr when unset."""

import os
import subprocess
import sys

SHOW = (
    "import os, seam\n"
    "print(os.environ['PJRT_DEVICE'], os.environ['PJRT_DYNAMIC_PLUGINS'])\n"
    "print((seam.ones(2) * 2).numpy().tolist())\n"
)


# The CPU plugin's one warning where OpenBLAS runs generic kernels on this CPU (an Intel
# AVX-512 CPU that Debian's OpenBLAS takes for a Prescott): not the import's.
BLAS_NOTE = "seam W cpu plugin: OpenBLAS runs its generic "


def stderr_of(out):
    return "".join(line for line in out.stderr.splitlines(keepends=True)
                   if not line.startswith(BLAS_NOTE))


def run(env_changes):
    env = {k: v for k, v in os.environ.items() if k not in ("PJRT_DEVICE", "PJRT_DYNAMIC_PLUGINS")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env.update(env_changes)
    return subprocess.run([sys.executable, "-c", SHOW], env=env, capture_output=True, text=True,
                          timeout=60)


def test_unset_device_defaults_to_cpu_with_one_warning():
    out = run({})
    assert out.returncode == 0, out.stderr
    assert stderr_of(out) == "Defaulting to PJRT_DEVICE=CPU\n"
    assert out.stdout.splitlines() == ["CPU 1", "[2.0, 2.0]"]


def test_set_device_and_plugins_are_kept_silently():
    out = run({"PJRT_DEVICE": "CPU", "PJRT_DYNAMIC_PLUGINS": "0"})
    assert out.returncode == 0, out.stderr
    assert stderr_of(out) == ""
    assert out.stdout.splitlines()[0] == "CPU 0"


def test_default_selection_can_be_turned_off():
    out = run({"PJRT_SELECT_DEFAULT_DEVICE": "0"})
    assert "Defaulting" not in out.stderr
    assert out.returncode != 0 and "KeyError: 'PJRT_DEVICE'" in out.stderr
