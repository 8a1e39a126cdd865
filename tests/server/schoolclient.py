"""A web class of three sheets and its teacher's client, on one store, for the hand-in tests; and the helpers they share."""

from __future__ import annotations

import re
from pathlib import Path
import subprocess
import sys

from waiting import made
from conftest import ROOT
from starlette.testclient import TestClient

from generator.app.store import Store
from generator.core.answers import skeleton
from generator.core.formats import problem_from_json
from generator.core.registry import solve
from generator.core.numbers import sheet_value
from generator.web.app import create_app


CLI = [sys.executable, "-m", "generator"]


def cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], cwd=ROOT, capture_output=True, text=True, **kw)


def new_school(tmp_path: Path):
    """A web batch of three sheets and a teacher's client, on one store."""
    store = Store(tmp_path / "data")
    app = create_app(store)
    teacher = TestClient(app, base_url="http://127.0.0.1", follow_redirects=False)
    store.student = lambda: TestClient(app, base_url="http://127.0.0.1", follow_redirects=False)
    csrf = re.search(r'name="csrf" value="([^"]+)"', teacher.get("/").text).group(1)
    made(teacher, teacher.post("/batches", data={"csrf": csrf, "count": "3", "seed": "8"}))
    return store, teacher, csrf, store.batch("batch-0001")


def key_answers(sheet: dict) -> dict:
    """A sheet's answers@1 with every box as the key has it (what a perfect paper says)."""
    problem = problem_from_json(sheet["problem"])
    h = solve(problem).heads[0]
    grids = {
        name: [[sheet_value(v) for v in row] for row in getattr(h, name)]
        for name in ("Q", "K", "V", "scores", "scaled", "powers", "A", "Z")
    }
    grids.update(
        Q_copy=grids["Q"],
        V_copy=grids["V"],
        K_T=[list(r) for r in zip(*grids["K"])],
        sums=[sheet_value(v) for v in h.sums],
    )
    return {"heads": [grids]}


def garbage(sheet: dict) -> dict:
    """Every box written, none right: a student fishing for the key."""
    problem = problem_from_json(sheet["problem"])
    doc = skeleton(problem, sheet["code"])
    for grid in doc["heads"][0].values():
        for i, row in enumerate(grid):
            if isinstance(row, list):
                grid[i] = ["98765"] * len(row)
            else:
                grid[i] = "98765"
    return {"heads": doc["heads"]}


def values_in(expected: dict) -> dict:
    """The boxes a feedback's `expected` states a value of, as answers@1 to hand in."""
    return {
        "heads": [
            {step: (grid if step != "sums" else grid) for step, grid in head.items()}
            for head in expected.get("heads", [])
        ]
    }
