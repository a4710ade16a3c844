"""advisor/_core.pyi matches the compiled core (mypy's stubtest), so mypy checks callers against
what the core really offers."""
import subprocess
import sys
from pathlib import Path

ALLOWLIST = Path(__file__).parent / "stubtest_allowlist.txt"
PYPROJECT = Path(__file__).parent.parent / "pyproject.toml"     # the project's mypy settings


def test_stub_matches_the_compiled_core():
    r = subprocess.run([sys.executable, "-m", "mypy.stubtest", "advisor._core", "--allowlist", str(ALLOWLIST),
                        "--mypy-config-file", str(PYPROJECT)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
