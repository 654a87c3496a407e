"""Install size: `policyc` (the README's first command), `policyc[test,dev]` (what running the tests and the
linters adds), and `policyc-runtime` (the gate without the compiler).

Each distribution is installed from this checkout, with its dependencies from the package
index, into a fresh virtual environment (no system site-packages); the figure is the growth
of that environment's site-packages over an empty one (pip itself excluded), and the
largest packages that make it up.

Run (needs the package index):
    python benchmarks/install_size.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"policyc": str(ROOT), "policyc[test,dev]": f"{ROOT}[test,dev]",
           "policyc-runtime": str(ROOT / "packaging" / "policyc-runtime")}
BASELINE = {"pip", "setuptools", "_distutils_hack", "pkg_resources", "distutils-precedence.pth", "__pycache__"}


def size_of(path: Path) -> int:
    if path.is_file() or path.is_symlink():
        return path.lstat().st_size
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


def install(name: str, where: Path) -> dict:
    venv = where / name.replace("[", "-").replace("]", "").replace(",", "-")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_USER")}
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    TARGETS[name]], check=True, env=env)
    entries = {}
    for entry in site_packages(venv).iterdir():
        base = entry.name.split("-")[0] if entry.name.endswith(".dist-info") else entry.name
        if base in BASELINE or base.lower() in BASELINE:
            continue
        key = base.split(".")[0].lower()
        entries[key] = entries.get(key, 0) + size_of(entry)
    return entries


def mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, default=None, help="build the environments here and keep them")
    parser.add_argument("--only", nargs="*", choices=list(TARGETS), help="measure these distributions only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        where = args.keep or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        for name in args.only or TARGETS:
            entries = install(name, where)
            total = sum(entries.values())
            largest = sorted(entries.items(), key=lambda kv: -kv[1])[:6]
            print(f"{name}: {mib(total)} in site-packages, {len(entries)} packages; largest: "
                  + ", ".join(f"{k} {mib(v)}" for k, v in largest))


if __name__ == "__main__":
    main()
