"""The conformance vectors travel inside the wheel, and the CLI runs them by default."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from harness_conformance.cli import main
from harness_conformance.conformance import PACKAGED_FOLDER, shipped_vectors
from harness_conformance.conformance import _meta as shipped

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT / "conformance"


def _vector_files() -> set[str]:
    return {p.relative_to(CONFORMANCE).as_posix() for p in CONFORMANCE.rglob("*") if p.is_file()}


def test_the_wheel_config_maps_the_vectors_to_the_packaged_folder() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    wheel = config["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["force-include"] == {"conformance": f"harness_conformance/{PACKAGED_FOLDER}"}
    # The sdist carries the folder too, so a wheel built from it holds the vectors.
    assert "conformance" in config["tool"]["hatch"]["build"]["targets"]["sdist"]["include"]


@pytest.mark.slow
def test_a_source_checkout_runs_the_repository_folder_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no conformance/ here: the default does not hang on the cwd
    assert shipped_vectors() == CONFORMANCE
    assert main(["conformance"]) == 0
    out = capsys.readouterr().out
    for kind in ("schema", "invariants", "replay", "errors", "wire"):
        assert f"{kind} vectors in {CONFORMANCE / kind}: " in out
    assert ", 0 failed, " in out


def test_the_packaged_folder_wins_over_a_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "harness_conformance"
    (package / PACKAGED_FOLDER / "meta").mkdir(parents=True)
    monkeypatch.setattr(shipped, "files", lambda name: package)
    assert shipped_vectors() == package / PACKAGED_FOLDER


def test_an_installation_without_vectors_asks_for_a_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(shipped, "files", lambda name: tmp_path)
    monkeypatch.setattr(shipped, "__file__", str(tmp_path / "a" / "b" / "c" / "d.py"))
    assert shipped_vectors() is None
    assert main(["conformance"]) == 2
    err = capsys.readouterr().err
    assert "ships no conformance vectors" in err
    assert "pass the DIR" in err


@pytest.mark.slow
def test_an_installed_wheel_runs_its_own_vectors(tmp_path: Path) -> None:
    pytest.importorskip("hatchling", reason="the wheel is built with the project's backend")
    from hatchling.builders.wheel import WheelBuilder

    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, source / name)
    for folder in ("src", "conformance"):
        shutil.copytree(
            ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    built = list(WheelBuilder(str(source)).build(directory=str(tmp_path), versions=["standard"]))
    assert len(built) == 1
    prefix = f"harness_conformance/{PACKAGED_FOLDER}/"
    with zipfile.ZipFile(built[0]) as wheel:
        names = wheel.namelist()
        site = tmp_path / "site"
        wheel.extractall(site)
    assert {n[len(prefix) :] for n in names if n.startswith(prefix)} == _vector_files()

    # The installed copy comes first on the path; the working folder holds no vectors.
    env = {**os.environ, "PYTHONPATH": str(site)}
    run = subprocess.run(
        [sys.executable, "-m", "harness_conformance", "conformance"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    packaged = site / "harness_conformance" / PACKAGED_FOLDER
    assert f"schema vectors in {packaged / 'schema'}: " in run.stdout
    assert ", 0 failed, " in run.stdout
