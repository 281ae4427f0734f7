"""`pip install .` from the repository's root (README, docs/python.md): in a
fresh virtualenv, pip builds the wheel through maturin (pyproject.toml at
the root names the crate) and the package imports and works, its stub and
PEP 561 marker with it. pip fetches maturin from PyPI for its isolated
build, as a user's does; cargo reuses the repository's target/."""

import subprocess
import sys

from conftest import ROOT, ROTORNET

# What both builds must answer alike: the paper's Fig. 6 steps on rotornet-8.
USE = (
    "import lighthouse\n"
    f"net = lighthouse.LighthouseNet({str(ROTORNET)!r})\n"
    "assert net.round_robin() is True\n"
    "print(lighthouse.__version__, len(net.direct()))\n"
)


def run(py, code, cwd):
    r = subprocess.run([py, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_pip_install_from_the_repository_root_in_a_fresh_venv(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    r = subprocess.run(
        [py, "-m", "pip", "install", "--disable-pip-version-check", "-q", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    # Run outside the checkout, so the import is the installed package's.
    where = run(py, "import lighthouse, pathlib\n"
                    "pkg = pathlib.Path(lighthouse.__file__).parent\n"
                    "print(pkg, (pkg / 'py.typed').is_file(), (pkg / '_native.pyi').is_file())\n",
                tmp_path).split()
    assert where[0].startswith(str(venv)) and where[1:] == ["True", "True"], where
    installed = run(py, USE, tmp_path)
    # The same answers as the project's own build (.venv); rotornet-8 has
    # 392 direct paths (49 per ToR).
    assert installed == run(sys.executable, USE, tmp_path)
    assert installed.split()[1] == "392", installed
