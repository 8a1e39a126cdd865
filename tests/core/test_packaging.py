"""The wheel: built from the repo, installed into a fresh virtualenv, run from elsewhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
import zipfile

import click
import pytest
from conftest import ROOT

from generator.cli import cli


def test_every_command_and_option_has_help():
    from generator.cli import COMMANDS

    for name in cli.list_commands(None):
        command = cli.get_command(None, name)
        assert command.help, name
        # The group lists commands without importing them: its line is the command's own.
        assert command.help.split("\n\n")[0].replace("\n", " ") == COMMANDS[name][2], name
        assert "Example" in command.help, name
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{name} {param.name}"


@pytest.fixture(scope="session")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (path,) = out.glob("attnsheet-*.whl")
    return path


def test_wheel_ships_templates_and_examples(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "generator/examples/classic.json" in names
    assert any(n.startswith("generator/templates/") for n in names)
    assert not any(n.startswith("tests/") for n in names)


def test_installed_versions_are_the_supported_ones():
    # pyproject.toml bounds every dependency whose internals or bytes we rely on; a version
    # outside them is untested here, and this says which.
    import tomllib
    from importlib.metadata import PackageNotFoundError, version

    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wrong = []
    for text in project["dependencies"]:
        requirement = Requirement(text)
        try:
            installed = version(requirement.name)
        except PackageNotFoundError:
            wrong.append(f"{requirement.name} is not installed (needs {requirement.specifier})")
            continue
        if not requirement.specifier.contains(installed, prereleases=True):
            wrong.append(f"{requirement.name} {installed} is installed; attnsheet supports {requirement.specifier}")
    assert not wrong, "unsupported versions: " + "; ".join(wrong)


def test_installed_wheel_runs_from_another_folder(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    # The dependencies are the ones `make test` installed, at constraints.txt's versions: made
    # visible to the new environment, so the wheel installs with no network and no other version.
    site = next(env_dir.glob("lib/python*/site-packages"))
    ours = next(p for p in sys.path if p.endswith("site-packages") and p.startswith(sys.prefix))
    (site / "attnsheet-test-deps.pth").write_text(ours + "\n")
    pip = [str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)]
    subprocess.run(pip, check=True, capture_output=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    example = ROOT / "generator" / "examples" / "worked.json"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    result = subprocess.run(
        [str(env_dir / "bin" / "attnsheet"), "solve", str(example), "--json"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["Z"] == [["4/5", "2/5", "2/5"], ["8/5", "8/5", "8/5"]]
    location = subprocess.run(
        [str(env_dir / "bin" / "python"), "-c", "import generator; print(generator.__file__)"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert str(env_dir) in location  # the installed copy, not the repo's
    sheets = subprocess.run(
        [str(env_dir / "bin" / "attnsheet"), "generate", "--seed", "1", "--lang", "es", "--out", "made"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env=env,
    )
    assert sheets.returncode == 0, sheets.stderr
    assert (elsewhere / "made" / "worksheets.pdf").read_bytes().startswith(b"%PDF")


def test_help_and_solve_import_neither_numpy_nor_jinja_nor_weasyprint():
    # Start-up is what a teacher feels: these commands load only what they use.
    script = (
        "import sys\nfrom generator.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'jinja2', 'weasyprint', 'pydyf'})\n"
        "sys.stderr.write('HEAVY=' + ','.join(heavy) + '\\n')\n"
    )
    example = str(ROOT / "generator" / "examples" / "worked.json")
    for args in (["--help"], ["solve", example], ["solve", example, "--json"]):
        r = subprocess.run([sys.executable, "-c", script, *args], cwd=ROOT, capture_output=True, text=True)
        assert "HEAVY=\n" in r.stderr, (args, r.stderr[-200:])
