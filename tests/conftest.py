"""Shared test helpers: run the real CLI entry point in-process and capture what it prints."""

from __future__ import annotations

import hashlib
import io
import os
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from generator.cli import main

# Shared machines are slow at times: a per-example deadline would make property tests flaky.
settings.register_profile("attnsheet", deadline=None)
settings.load_profile("attnsheet")

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "generator" / "examples"


@pytest.fixture(scope="session", autouse=True)
def _secrets_drawn_from_the_tests_name():
    """Every secret a test makes in this process (a server's, a teacher's) is drawn from the test's
    name: a web class's numbers, and so its scans and photos, are the same every run, and a reader's
    slip on some draw shows in every run or in none (never as a run that fails once in several)."""
    import generator.draw.private as private

    made: Counter = Counter()

    def drawn() -> private.Secret:
        test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]  # its phase left off
        made[test] += 1  # a test's second secret is another one
        return private.Secret(hashlib.sha256(f"{test}#{made[test]}".encode()).digest()[: private.SECRET_BYTES])

    real, private.new_secret = private.new_secret, drawn
    yield
    private.new_secret = real


@dataclass
class Run:
    """What one CLI run printed and how it exited."""

    code: int
    out: str
    err: str


@pytest.fixture
def run(capsys, monkeypatch):
    """Call `main(args)` like the shell would, with optional stdin text."""

    def _run(*args: str, stdin: str | bytes = "") -> Run:
        data = stdin.encode() if isinstance(stdin, str) else stdin
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
        code = 0
        try:
            main(list(args))
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return _run


SLOW_MODULES = frozenset(
    {
        "test_jobs",
        "test_attention_draw",
        "test_handin_policies",
        "test_slow_and_lying_clients",
        "test_huge_pictures_and_long_piles",
        "test_secrets_leftovers_and_full_disks",
        "test_wide",
        "test_scan",
        "test_scan_printed",
        "test_every_kind",
        "test_jobs_share",
        "test_pages",
        "test_store",
        "test_paint",
        "test_scan_assign",
        "test_plugin_kind",
        "test_accounts",
        "test_bad_input_and_stops",
        "test_web_app",
        "test_photos",
        "test_web_assign",
        "test_connections",
        "test_direct",
        "test_grown",
        "test_upload_limits",
        "test_server_limits",
        "test_files_and_signals",
        "test_scan_reports",
        "test_scan_writers",
        "test_properties",
        "test_packaging",
    }
)
"""Modules whose tests take long on this machine (pytest --durations on 2026-12-06: these 28 took
440 of the 516 s the suite takes without a browser or PostgreSQL): `make check` leaves them to
`make test`."""


def pytest_collection_modifyitems(config, items):
    """Every test marked by what it needs: a real browser (browser), a PostgreSQL server (postgres),
    or much time (slow): `make check` runs the others, `make test` every one."""
    for item in items:
        module = item.module.__name__ if item.module else ""
        params = getattr(getattr(item, "callspec", None), "params", {})
        if item.path.parent.name == "web" or "browser" in item.fixturenames:
            item.add_marker(pytest.mark.browser)
        if "postgres_server" in item.fixturenames or params.get("database") == "postgresql":
            item.add_marker(pytest.mark.postgres)
        if module in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="Rewrite the golden files from the current code (review the diff before committing).",
    )


@pytest.fixture
def golden(request):
    """Compare text with a file under tests/golden/, or rewrite it with --update-golden."""

    def _check(name: str, text: str) -> None:
        path = ROOT / "tests" / "golden" / name
        if request.config.getoption("--update-golden"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            return
        assert path.exists(), f"missing golden file {path}; run pytest --update-golden and review it"
        expected = path.read_text(encoding="utf-8")
        assert text == expected, f"{name} changed; if intended, run pytest --update-golden and review the diff"

    return _check


@pytest.fixture(scope="session")
def postgres_server():
    """A throwaway PostgreSQL server for the session (skipped, with the reason, where none can run)."""
    from pgserver import Server, Unavailable

    try:
        server = Server()
    except Unavailable as why:
        pytest.skip(f"PostgreSQL store tests skipped: {why}")
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path):
    """Where a store keeps its rows: None (SQLite in the data folder) or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return None
    return request.getfixturevalue("postgres_server").fresh()


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium driven by Playwright, one per test module."""
    import shutil

    from playwright.sync_api import sync_playwright
    from test_browser_pages import CHROMIUM, FLAGS

    assert shutil.which("chromium"), "Debian's chromium is missing: `make test` installs it (make system)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()
