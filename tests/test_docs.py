"""The README tells the truth: its --help blocks are what the tool prints today."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

from cogapp import Cog
from conftest import ROOT


def test_the_readme_help_blocks_are_current(monkeypatch):
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(out):
        status = Cog().main(["cog", "--check", "README.md"])
    assert status == 0, f"README.md's --help blocks are stale: run `make readme` and commit it\n{out.getvalue()}"
