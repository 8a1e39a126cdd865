"""What every kind's own tests ask the same way: the key as a student's answers, grading them, a refused setting, a refused problem file."""

from __future__ import annotations

import json

import pytest

from generator.core.answers import parse_answers_json
from generator.core.errors import ProblemError
from generator.core.formats import problem_from_json, problem_to_json, solution_to_json
from generator.core.registry import grade, solve


def key_answers(p) -> dict:
    """answers@1 with every grid as the key has it."""
    doc = {"format": "attnsheet/answers@1", "problem": problem_to_json(p)}
    doc.update({k: v for k, v in solution_to_json(solve(p)).items() if k not in ("format", "kind", "problem")})
    return doc


def graded(p, doc: dict, carry: bool = True):
    """answers@1 `doc` graded against problem `p`."""
    (pending,) = parse_answers_json(json.dumps(doc), "a")
    return grade(p, pending.answers(p, pending.student, None), carry=carry)


def refuses_setting(run, kind: str, args, line: str) -> None:
    """`draw --kind KIND ARGS` fails with exit 2 and one line saying `line`."""
    r = run("draw", "--kind", kind, "--seed", "1", *args)
    assert r.code == 2 and line in r.err and r.err.count("\n") == 1, r.err


def refuses_problem(run, tmp_path, example, change: dict, message: str) -> None:
    """The example problem file with `change` is refused by `solve` (exit 1, one line saying `message`) and by the reader."""
    doc = {**json.loads(example.read_text()), **change}
    (tmp_path / "p.json").write_text(json.dumps(doc))
    r = run("solve", str(tmp_path / "p.json"))
    assert r.code == 1 and message in r.err and r.err.count("\n") == 1, r.err
    with pytest.raises(ProblemError):
        problem_from_json(doc)


def codes_rebuild(o, problems) -> None:
    """Every third problem's code rebuilds it with its options, and a batch's problem is the same drawn alone."""
    from generator.draw.rebuild import rebuild
    from generator.draw.search import draw
    from generator.draw.sheetcodes import decode_code

    for p in problems[::3]:
        assert rebuild(p.code) == p and decode_code(p.code).options == o
    assert draw(o, 7, count=5)[3] == draw(o, 7, count=1, start=3)[0]


def prints_and_grades(
    run, tmp_path, kind: str, args, lang: str, paper: str, names, most_pages: int = 1, gradebook=()
) -> dict:
    """Two sheets of `kind` (with `args`) printed with a worked key in `lang` on `paper`: each on one
    page (or at most `most_pages`), inside the margins, every one of `names` on them, in the
    sheet's language; their answer skeletons graded, the gradebook's header naming `gradebook`.
    The first skeleton, for a test to look into."""
    from test_kind_sheets import inside
    from test_pages import pages

    out = tmp_path / "b"
    r = run(
        "generate",
        "--kind",
        kind,
        "--count",
        "2",
        "--seed",
        "5",
        *args,
        "--lang",
        lang,
        "--paper",
        paper,
        "--worked",
        "--out",
        str(out),
        "--jobs",
        "1",
    )
    assert r.code == 0, r.err
    for name in ("worksheets.pdf", "answer-keys.pdf"):
        found = pages(out / name)
        assert len(found) == 2 if most_pages == 1 else 2 <= len(found) <= 2 * most_pages, (name, len(found))
        inside(name, found)
        words = " ".join(w[4] for _, _, ws in found for w in ws)
        assert all(n in words for n in names), (name, [n for n in names if n not in words])
        assert ("mano" in words.split()) == (lang == "es")
    skeletons = tmp_path / "answers.json"
    assert run("answers", "--manifest", str(out / "manifest.json"), "--all", "--out", str(skeletons)).code == 0
    r = run("grade", str(skeletons), "--manifest", str(out / "manifest.json"), "--out", str(tmp_path / "g"))
    assert r.code == 0, r.err
    header = (tmp_path / "g" / "gradebook.csv").read_text().splitlines()[0]
    assert all(n in header for n in gradebook), header
    return json.loads(skeletons.read_text())[0]
