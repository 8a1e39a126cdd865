"""Sheets of the feed-forward layer and the transformer block, read back from the PDFs they print."""

from __future__ import annotations

import json

import pytest
from waiting import made
from test_pages import MARGIN_PT, overlapping, pages

KINDS = {
    "ffn": ("--kind", "ffn"),
    "given": ("--kind", "transformer"),
    "computed": ("--kind", "transformer", "--attention", "computed"),
}


def inside(name, found):
    for width, height, words in found:
        for x0, y0, x1, y1, text in words:
            assert MARGIN_PT - 0.5 <= x0 and x1 <= width - MARGIN_PT + 0.5, (name, text, x0, x1)
            assert 0 <= y0 and y1 <= height, (name, text)
        assert not overlapping(words), (name, overlapping(words)[:5])


@pytest.mark.parametrize("kind", ["ffn", "given"])
@pytest.mark.parametrize("convention", ["column", "row"])
@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_default_ffn_or_block_is_one_page_inside_its_margins(run, tmp_path, kind, convention, lang, paper):
    args = (*KINDS[kind], "--count", "2", "--seed", "11", "--convention", convention, "--lang", lang, "--paper", paper)
    r = run("generate", *args, "--out", str(tmp_path), "--jobs", "1")
    assert r.code == 0, r.err
    for name in ("worksheets.pdf", "answer-keys.pdf"):
        found = pages(tmp_path / name)
        assert len(found) == 2, (name, len(found))  # one page a sheet
        inside(name, found)
        words = " ".join(w[4] for _, _, ws in found for w in ws)
        assert "H_pre" in words and "ReLU(H_pre)" in words
        assert ("mano" in words.split()) == (lang == "es") and ("hand" in words.split()) == (lang == "en")


@pytest.mark.parametrize("convention", ["column", "row"])
def test_a_computed_block_takes_two_pages_with_R_and_its_layers_together(run, tmp_path, convention):
    r = run(
        "generate",
        *KINDS["computed"],
        "--count",
        "1",
        "--seed",
        "11",
        "--convention",
        convention,
        "--out",
        str(tmp_path),
        "--jobs",
        "1",
    )
    assert r.code == 0, r.err
    for name in ("worksheets.pdf", "answer-keys.pdf"):
        found = pages(tmp_path / name)
        assert len(found) <= 2, (name, len(found))
        inside(name, found)
        # R's caption ("R = X + Z", no comma: the rules box's has one) and the layers' on one page.
        holding = {
            k
            for k, (_, _, words) in enumerate(found)
            for i in range(len(words) - 4)
            if [w[4] for w in words[i : i + 5]] == ["R", "=", "X", "+", "Z"]
        }
        holding |= {k for k, (_, _, words) in enumerate(found) if any(w[4] == "H_pre" for w in words)}
        assert len(holding) == 1, (name, holding)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_worked_keys_and_graded_sheets_print(run, tmp_path, kind):
    out = tmp_path / "b"
    assert (
        run("generate", *KINDS[kind], "--count", "2", "--seed", "3", "--out", str(out), "--worked", "--jobs", "1").code
        == 0
    )
    words = " ".join(w[4] for _, _, ws in pages(out / "answer-keys.pdf") for w in ws)
    assert "ReLU(" in words and "[W1" in words  # the worked example's layer lines
    manifest = json.loads((out / "manifest.json").read_text())
    assert all(s["problem"]["kind"] == ("ffn" if kind == "ffn" else "transformer") for s in manifest["sheets"])
    skeletons = tmp_path / "answers.json"
    assert run("answers", "--manifest", str(out / "manifest.json"), "--all", "--out", str(skeletons)).code == 0
    r = run("grade", str(skeletons), "--manifest", str(out / "manifest.json"), "--out", str(tmp_path / "g"))
    assert r.code == 0, r.err
    graded = sorted((tmp_path / "g" / "graded").iterdir())
    assert len(graded) == 2
    header = (tmp_path / "g" / "gradebook.csv").read_text().splitlines()[0]
    assert "H_pre" in header and "out" in header
    assert "Z concat" not in header  # one head and no W_O (or A given): no concatenation


def test_blank_templates_and_own_problems_of_the_new_kinds(run, tmp_path):
    from conftest import EXAMPLES

    r = run(
        "generate",
        "--kind",
        "transformer",
        "--attention",
        "computed",
        "--heads",
        "2",
        "--output-projection",
        "--blank",
        "--out",
        str(tmp_path / "a"),
        "--jobs",
        "1",
    )
    assert r.code == 0, r.err
    assert "Z_concat" in " ".join(w[4] for _, _, ws in pages(tmp_path / "a" / "worksheets.pdf") for w in ws)
    for example in ("ffn.json", "block.json"):
        r = run(
            "generate",
            "--problem",
            str(EXAMPLES / example),
            "--count",
            "2",
            "--out",
            str(tmp_path / example),
            "--jobs",
            "1",
        )
        assert r.code == 0, r.err
        code = json.loads((tmp_path / example / "manifest.json").read_text())["sheets"][1]["code"]
        r = run("key", code, "--problem", str(EXAMPLES / example), "--out", str(tmp_path / f"{example}-key"))
        assert r.code == 0, r.err


def test_the_web_app_makes_enters_and_grades_an_ffn_and_a_block(tmp_path):
    import re

    from starlette.testclient import TestClient

    from generator.app.store import Store
    from generator.web.app import create_app

    web = TestClient(create_app(Store(tmp_path / "data")), base_url="http://127.0.0.1", follow_redirects=False)
    home = web.get("/").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', home).group(1)
    assert 'id="f-kind"' in home and 'name="residual" type="checkbox" checked' in home
    for kind, fields, cells in (("ffn", {"residual": "on"}, 4 * 3 * 2 + 3 * 3 * 2), ("transformer", {}, 3 * 3 * 6)):
        location = made(
            web, web.post("/batches", data={"csrf": csrf, "count": "2", "seed": "5", "kind": kind, **fields})
        )
        manifest = json.loads(web.get(location + "/files/manifest.json").text)
        sheet = manifest["sheets"][0]
        assert sheet["problem"]["kind"] == kind
        page = web.get(location + "/sheets/1")
        assert page.status_code == 200 and page.text.count('class="cell"') == cells
        answers = {
            name: sheet["solution"][name] for name in ("Z", "R", "H_pre", "H", "Y", "out") if name in sheet["solution"]
        }
        headers = {"x-csrf-token": csrf}
        graded = web.post(f"/api{location}/sheets/1/grade", json=answers, headers=headers).json()
        assert graded["points"] == graded["total"] == cells, graded
        saved = web.post(f"/api{location}/sheets/1/save", json=answers, headers=headers).json()
        assert saved["saved"] and saved["points"] == cells
        assert web.get(location + "/class").status_code == 200
        assert web.get(location + "/class/001.pdf").content.startswith(b"%PDF")
    r = web.post("/batches", data={"csrf": csrf, "kind": "ffn", "d_v": "2"})
    assert r.status_code == 400 and "“Value size” is for attention sheets" in r.text
    # Practice: a fresh sheet of the kind, every box explained from the student's own cells.
    r = web.get("/practice?kind=ffn&preset=easy")
    assert r.status_code == 303 and r.headers["location"].startswith("/practice/")
    code = r.headers["location"].rsplit("/", 1)[1]
    assert web.get(f"/practice/{code}").text.count('class="cell"') == 4 * 3 * 2 + 3 * 3 * 2
    graded = web.post(
        f"/api/practice/{code}/grade",
        json={"H_pre": [[0, None, None]] + [[None] * 3] * 3},
        headers={"x-csrf-token": csrf},
    ).json()
    assert graded["cells"]["H_pre"][0][0] in ("correct", "wrong")
    assert "row 1 of [W1 | b1] · column 1 of [X ; 1]" in graded["explain"]["H_pre"][0][0]
    assert "ReLU" in graded["explain"]["H"][0][0]


SWEEP = [(n, d, f) for n, d, f in ((2, 2, 2), (3, 3, 4), (4, 3, 5), (5, 4, 4), (6, 4, 6), (8, 5, 6))]


@pytest.mark.parametrize("kind", ["ffn", "given"])
@pytest.mark.parametrize("convention", ["column", "row"])
def test_the_page_tests_sweep_the_kinds_shapes(run, tmp_path, kind, convention):
    """Shapes from the smallest to the largest a kind takes: every word inside the margins, none
    overlapping, and each product's caption on the page of its factors' (a band is never split)."""
    for n, d, f in SWEEP:
        out = tmp_path / f"{n}{d}{f}"
        r = run(
            "generate",
            *KINDS[kind],
            "--tokens",
            str(n),
            "--d-model",
            str(d),
            "--d-ff",
            str(f),
            "--seed",
            "2",
            "--convention",
            convention,
            "--out",
            str(out),
            "--jobs",
            "1",
        )
        if r.code == 2 and "must all differ" in r.err:
            continue  # a shape whose tokens cannot all differ is refused up front
        assert r.code == 0, (n, d, f, r.err)
        for name in ("worksheets.pdf", "answer-keys.pdf"):
            found = pages(out / name)
            inside(f"{n}{d}{f} {name}", found)
            page_of = {}
            for k, (_, _, words) in enumerate(found):
                for i, w in enumerate(words):
                    if w[4] in ("W1", "W2", "H_pre", "Y") and i + 1 < len(words) and words[i + 1][4] in ("|", ";", "="):
                        page_of.setdefault(w[4], k)
            assert page_of.get("W1") == page_of.get("H_pre") and page_of.get("W2") == page_of.get("Y"), page_of
