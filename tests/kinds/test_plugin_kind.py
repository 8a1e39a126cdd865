"""A kind from outside, end to end: tests/plugins/attnsheet-linear (a linear layer, y = W·x + b)
is a package of its own that registers itself in the attnsheet.kinds entry points. Installed
with pip, it is drawn, printed (worksheet, key, blank template), solved, graded with error
carried forward, handed in from a phone, practised, projected and read from scans like every
built-in kind, and nothing in generator/ names it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

import test_every_kind as every
from conftest import ROOT

PLUGIN = ROOT / "tests" / "plugins" / "attnsheet-linear"
ATTNSHEET = [sys.executable, "-m", "generator"]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The plug-in installed with pip into a folder of its own; the environment of a process that
    has it (PYTHONPATH: Python reads the folder's entry points as a site-packages' own). This
    process never loads it: every use below is a fresh process, as a teacher's would be."""
    target = tmp_path_factory.mktemp("plugin")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(PLUGIN)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(target), os.environ.get("PYTHONPATH")]))}


def test_nothing_in_the_package_names_the_plugin():
    names = re.compile(
        r"""attnsheet_linear|LinearProblem|Kind\("linear"|kind="linear"|--kind linear|the linear layer""", re.IGNORECASE
    )
    named = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "generator").rglob("*.py")
        if names.search(p.read_text(encoding="utf-8"))
    ]
    assert named == []


def _run(env: dict, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([*ATTNSHEET, *args], capture_output=True, text=True, input=stdin or None, env=env)


def test_it_is_drawn_printed_solved_and_graded_from_the_command_line(installed, tmp_path):
    for convention in ("column", "row"):
        out = tmp_path / convention
        done = _run(
            installed,
            "generate",
            "--kind",
            "linear",
            "--count",
            "3",
            "--seed",
            "11",
            "--convention",
            convention,
            "--out",
            str(out),
        )
        assert done.returncode == 0, done.stderr
        assert (out / "worksheets.pdf").read_bytes().startswith(b"%PDF") and (out / "answer-keys.pdf").exists()
        sheet = json.loads((out / "manifest.json").read_text())["sheets"][0]
        problem, code = sheet["problem"], sheet["code"]
        assert problem["kind"] == "linear" and problem["convention"] == convention
        # The key against an independent computation: numpy's product in the problem's own layout.
        X, W, b = (np.array(problem[name]) for name in ("X", "W", "b"))
        want = W @ X + b[:, None] if convention == "column" else X @ W + b[None, :]
        solved = _run(installed, "solve", "-", "--json", stdin=json.dumps(problem))
        assert solved.returncode == 0, solved.stderr
        key = json.loads(solved.stdout)["Y"]
        assert [[int(Fraction(x)) for x in r] for r in key] == want.tolist()
        # The code alone rebuilds the sheet.
        rebuilt = _run(installed, "key", code, "--out", str(tmp_path / f"key-{convention}"))
        assert rebuilt.returncode == 0, rebuilt.stderr
        # Graded with error carried forward: the key's own numbers earn every point, one slip costs one.
        doc = json.loads(_run(installed, "answers", code).stdout)
        doc["Y"] = [[str(x) for x in r] for r in want.tolist()]
        (tmp_path / "right.json").write_text(json.dumps(doc))
        (tmp_path / "slip.json").write_text(json.dumps(every.slipped(doc)))
        for name, lost in (("right", 0), ("slip", 1)):
            graded = _run(
                installed, "grade", str(tmp_path / f"{name}.json"), "--manifest", str(out / "manifest.json"), "--json"
            )
            assert graded.returncode == 0, graded.stderr
            result = json.loads(graded.stdout)
            assert result["points"] == result["total"] - lost == want.size - lost, result
    blank = _run(installed, "generate", "--kind", "linear", "--blank", "--out", str(tmp_path / "blank"))
    assert blank.returncode == 0 and (tmp_path / "blank" / "worksheets.pdf").exists(), blank.stderr


def test_the_suites_every_kind_passes_pass_for_it(installed):
    # The conformance test, every page of the server (a batch typed and graded, a phone's hand-in,
    # practice, the projector, a scanned pile) and carried credit's rules run over every registered
    # kind: run with the plug-in installed, they take it in with the built-in ones.
    suites = ["tests/core/test_kind_protocol.py", "tests/kinds/test_every_kind.py", "tests/core/test_degenerate.py"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "-k", "linear", *suites],
        capture_output=True,
        text=True,
        env=installed,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    passed = set(re.findall(r"^PASSED (\S+)", done.stdout, re.MULTILINE))
    assert passed >= {
        "tests/core/test_kind_protocol.py::test_every_registered_kind_keeps_the_protocol[linear]",
        "tests/kinds/test_every_kind.py::test_a_batch_of_each_kind_is_typed_graded_and_reported[linear]",
        "tests/kinds/test_every_kind.py::test_a_student_of_each_kind_hands_in_from_their_link[linear]",
        "tests/kinds/test_every_kind.py::test_each_kind_is_practised_and_projected[linear]",
        "tests/kinds/test_every_kind.py::test_a_scanned_pile_of_each_kind_is_read_to_its_sheets[linear]",
        "tests/core/test_degenerate.py::test_a_constant_first_step_earns_at_most_its_own_right_cells[linear]",
    }, done.stdout[-2000:]


def test_it_is_offered_on_the_form_and_the_command_line(installed):
    listed = _run(installed, "generate", "--help")
    assert "|linear]" in listed.stdout and "linear (the linear layer)" in " ".join(listed.stdout.split()).lower()
    form = subprocess.run(
        [sys.executable, "-c", "from generator.app.settings import kind_titles; print(kind_titles())"],
        capture_output=True,
        text=True,
        env=installed,
    )
    assert "'linear': 'The linear layer'" in form.stdout, form.stderr


def test_its_package_is_a_package_of_its_own():
    # Its own pyproject declares the entry point; the tool's pyproject does not know it.
    own = (PLUGIN / "pyproject.toml").read_text()
    assert '[project.entry-points."attnsheet.kinds"]' in own and 'linear = "attnsheet_linear.kind:KIND"' in own
    assert "attnsheet_linear" not in (ROOT / "pyproject.toml").read_text()


def test_the_guides_commands_run_with_the_plugin_installed(installed, tmp_path):
    from test_docs import code_lines

    shown = [line for line in code_lines(ROOT / "docs" / "plugins.md") if line.startswith("attnsheet ")]
    assert "attnsheet generate --kind linear --blank --out blank" in shown
    tool = tmp_path / "bin" / "attnsheet"  # `attnsheet` as the guide types it: this Python's, with the plug-in
    tool.parent.mkdir()
    tool.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m generator "$@"\n')
    tool.chmod(0o755)
    env = {**installed, "PATH": f"{tool.parent}{os.pathsep}{installed['PATH']}"}
    for line in shown:  # in the order the guide gives them, in one folder, as a teacher would
        done = subprocess.run(
            f"set -o pipefail; {line}",
            shell=True,
            executable="/bin/bash",
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        assert done.returncode == 0, f"{line}: {done.stderr}"
