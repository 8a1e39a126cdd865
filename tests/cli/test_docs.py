"""The documentation tells the truth: its generated blocks are current, every command it shows is one
the tool takes, the README's session prints what it says, and nothing of the old README was lost."""

from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import click
import pytest
from cogapp import Cog
from conftest import ROOT

from generator.cli import cli

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))

OLD_README = {
    # Every section of the README before the documentation site (issue 57), and where it lives now:
    # the page, and the heading it has there.
    "attnsheet": ("index.md", "attnsheet"),
    "A teacher's quick start": ("getting-started.md", "A teacher's quick start"),
    "Two commands": ("getting-started.md", "Two commands"),
    "Example session": ("getting-started.md", "Example session"),
    "Command reference": ("reference/index.md", "Command reference"),
    "attnsheet generate": ("reference/generate.md", "`attnsheet generate [--count N | --roster FILE] [options]`"),
    "attnsheet key": ("reference/key.md", "`attnsheet key CODE"),
    "attnsheet grade": ("reference/grade.md", "`attnsheet grade ANSWERS..."),
    "attnsheet scan": ("reference/scan.md", "`attnsheet scan SCAN..."),
    "The box geometry": ("reference/boxes.md", "The box geometry: `attnsheet boxes CODE"),
    "attnsheet answers": ("reference/answers.md", "`attnsheet answers CODE"),
    "attnsheet serve": ("reference/serve.md", "`attnsheet serve [--host 127.0.0.1]"),
    "The classroom server: students hand in their own work": (
        "reference/serve.md",
        "The classroom server: students hand in their own work",
    ),
    "Teachers' accounts: one server for a department": (
        "reference/serve.md",
        "Teachers' accounts: one server for a department",
    ),
    "attnsheet solve": ("reference/solve.md", "`attnsheet solve PROBLEM"),
    "attnsheet draw": ("reference/draw.md", "`attnsheet draw [--seed S]"),
    "The feed-forward layer and the transformer block": (
        "reference/draw.md",
        "The feed-forward layer and the transformer block",
    ),
    "The recurrent layer and the mixture of experts": (
        "reference/draw.md",
        "The recurrent layer and the mixture of experts",
    ),
    "Presets and guarantees": ("reference/draw.md", "Presets and guarantees"),
    "Sheet codes": ("reference/draw.md", "Sheet codes"),
    **{
        f"attnsheet {name} --help": (f"reference/{name}.md", f"`attnsheet {name} --help`")
        for name in (
            "generate",
            "key",
            "grade",
            "answers",
            "scan",
            "boxes",
            "solve",
            "draw",
            "serve",
            "export",
            "user",
            "worker",
            "jobs",
        )
    },
    "A server for a school": ("server.md", "A server for a school"),
    "Reproducible, atomic, safe": ("reliability.md", "Reproducible, atomic, safe"),
    "Reliability": ("reliability.md", "Reliability"),
    "Speed": ("speed.md", "Speed"),
    "Your own exercise": ("plugins.md", "Every kind's folder"),
    "Languages and templates": ("languages.md", "Languages and templates"),
    "File formats": ("formats.md", "File formats"),
    "Problem: `attnsheet/problem@1`": ("formats.md", "Problem: `attnsheet/problem@1`"),
    "Answers: `attnsheet/answers@1`": ("formats.md", "Answers: `attnsheet/answers@1`"),
    "Grade: `attnsheet/grade@1`": ("formats.md", "Grade: `attnsheet/grade@1`"),
    "Solution: `attnsheet/solution@1`": ("formats.md", "Solution: `attnsheet/solution@1`"),
}


def headings(page: Path) -> list[str]:
    """A page's headings' text, outside code blocks."""
    out, fence = [], False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence and re.match(r"#{1,6} ", line):
            out.append(line.split(" ", 1)[1].strip())
    return out


def code_lines(page: Path) -> list[str]:
    """Every line of a page's code blocks, a line continued with a backslash joined to the next."""
    out, fence, held = [], False, ""
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fence = not fence
        elif fence:
            held += line.rstrip()
            if held.endswith("\\"):
                held = held[:-1] + " "
                continue
            out.append(held)
            held = ""
    return out


def commands(page: Path) -> list[list[str]]:
    """Every attnsheet command a page's code blocks show, as its arguments after `attnsheet`."""
    out = []
    for line in code_lines(page):
        line = re.sub(r"^\$ ", "", line.strip())
        for part in line.split(" | "):
            part = re.sub(r"^(ExecStart=)?\S*?(\.venv/bin/|/usr/local/bin/)?(?=attnsheet )", "", part.strip())
            if not part.startswith("attnsheet ") or part.startswith("attnsheet: ") or "`" in part:  # prose in --help
                continue
            part = re.split(r"\s+#|\s[<>]\s", part)[0]  # a comment, or where a shell puts its output
            words = shlex.split(part)
            out.append(words[1:])
    return out


def test_the_generated_blocks_are_current(monkeypatch):
    monkeypatch.chdir(ROOT)
    cogged = [str(p.relative_to(ROOT)) for p in PAGES if "[[[cog" in p.read_text(encoding="utf-8")]
    assert len(cogged) >= 14  # each command's reference page and the kinds' folders
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(out):
        status = Cog().main(["cog", "--check", *cogged])
    assert status == 0, f"generated blocks are stale: run `make docs` and commit them\n{out.getvalue()}"


@pytest.mark.parametrize("old", sorted(OLD_README))
def test_no_section_of_the_old_readme_is_missing(old):
    page, heading = OLD_README[old]
    assert any(h.startswith(heading) for h in headings(DOCS / page)), f"{old!r}: no heading {heading!r} in docs/{page}"


def test_the_readme_is_short_and_its_links_lead_somewhere():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target


def test_every_page_is_in_the_sites_nav():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in PAGES:
        assert str(page.relative_to(DOCS)) in nav, page


def _check(args: list[str]) -> None:
    """Parses `attnsheet ARGS` as the tool would, without running it: every command, option and choice
    must be the tool's; an input file the page only names (roster.csv) may be absent."""
    ctx = cli.make_context("attnsheet", list(args[:1]))
    command, rest, parent = cli, list(args), ctx
    while isinstance(command, click.Group):
        name, *rest = rest
        found = command.get_command(parent, name)
        assert found is not None, f"no command {name!r}: attnsheet {shlex.join(args)}"
        command = found
        if isinstance(command, click.Group):
            parent = click.Context(command, info_name=name, parent=parent)
    try:
        command.make_context(command.name, rest, parent=parent)
    except click.exceptions.Exit:
        pass  # --help
    except click.BadParameter as e:
        if "does not exist" not in str(e):
            raise AssertionError(f"attnsheet {shlex.join(args)}: {e.format_message()}") from None
    except click.UsageError as e:
        raise AssertionError(f"attnsheet {shlex.join(args)}: {e.format_message()}") from None


def test_every_command_the_docs_show_is_one_the_tool_takes():
    # docs/plugins.md's need its plug-in installed: tests/kinds/test_plugin_kind.py runs them with it.
    shown = [
        (page, args) for page in [ROOT / "README.md", *PAGES] if page.name != "plugins.md" for args in commands(page)
    ]
    assert len(shown) >= 25
    for page, args in shown:
        _check(args)


def test_a_misspelt_option_would_be_caught():
    with pytest.raises(AssertionError, match="No such option"):
        _check(["generate", "--cuont", "3"])
    with pytest.raises(AssertionError, match="no command"):
        _check(["grades", "x.csv"])


def test_the_readmes_session_prints_what_it_says(tmp_path):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```console\n(.*?)```", text, re.S).group(1)
    steps = re.split(r"^\$ ", block, flags=re.M)[1:]
    tool = str(Path(sys.executable).parent / "attnsheet")
    env = {**os.environ, "COLUMNS": "100"}
    env.pop("SOURCE_DATE_EPOCH", None)
    for step in steps:
        line, *expected = step.rstrip("\n").split("\n")
        run = subprocess.run(
            line.replace(".venv/bin/attnsheet", tool),
            shell=True,
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        got = (run.stdout + run.stderr).rstrip("\n").split("\n")
        timing = re.compile(r" in \d+\.\d s\)?$| in \d+\.\d s$")
        assert [timing.sub("", g) for g in got] == [timing.sub("", e) for e in expected], line
        assert run.returncode == 0, line
