"""Hand-ins under every policy (issue 32): full feedback is not the key, verdicts for a few hand-ins only, no one's work silently replaced, a close that is final."""

from __future__ import annotations

import re

import pytest
from schoolclient import garbage, key_answers, new_school, values_in

from generator.app.classroom import Closed, save_sheet
from generator.core.answers import skeleton
from generator.core.formats import problem_from_json


@pytest.fixture
def school(tmp_path):
    """A web class of three sheets and its teacher's client."""
    return new_school(tmp_path)


# --- 1. "full" feedback is not the key -------------------------------------------------------------


@pytest.mark.parametrize(
    "feedback,release,released",
    [
        ("none", "now", False),
        ("verdicts", "now", False),
        ("full", "now", False),
        ("verdicts", "later", True),
        ("full", "later", False),
        ("full", "later", True),
    ],
)
def test_handing_in_blanks_then_what_came_back_earns_nothing_under_any_policy(school, feedback, release, released):
    store, teacher, csrf, batch = school
    teacher.post(
        f"/batches/{batch.id}/policy",
        data={"csrf": csrf, "feedback": feedback, "release": release, "action": "release" if released else "save"},
    )
    token, student = store.links(batch)[1].token, store.student()
    hand = lambda doc: student.post(f"/api/s/{token}/handin", json=doc, headers={"x-csrf-token": csrf})  # noqa: E731
    blank = hand({"heads": [{}]}).json()
    assert "expected" not in blank or not any(
        v
        for head in blank["expected"]["heads"]
        for grid in head.values()
        for v in (sum(grid, []) if grid and isinstance(grid[0], list) else grid)
    )
    again = hand(values_in(blank.get("expected", {})))
    assert again.status_code in (200, 409)
    if again.status_code == 200 and again.json().get("points") is not None:
        assert again.json()["points"] == 0
    assert store.saved(batch)[1]["points"] == 0


def test_full_feedback_states_only_wrong_boxes_and_only_with_the_last_hand_in(school):
    store, teacher, csrf, batch = school
    teacher.post(
        f"/batches/{batch.id}/policy",
        data={"csrf": csrf, "feedback": "full", "release": "now", "attempts": "2", "action": "save"},
    )
    sheet, token, student = batch.sheets[0], store.links(batch)[1].token, store.student()
    hand = lambda doc: student.post(f"/api/s/{token}/handin", json=doc, headers={"x-csrf-token": csrf})  # noqa: E731
    fishing = garbage(sheet)
    fishing["heads"][0]["A"] = None  # one grid left blank: never revealed
    first = hand(fishing).json()
    assert first["status"] == "graded" and "expected" not in first and first["left"] == 1
    last = hand(fishing).json()
    assert last["left"] == 0 and "expected" in last
    stated = last["expected"]["heads"][0]
    assert not any(v for row in stated["A"] for v in row)  # the blank grid: nothing
    assert stated["Q"][0][0] == key_answers(sheet)["heads"][0]["Q"][0][0]  # a wrong box: its value
    # Handing in what came back: refused, the last hand-in counts.
    r = hand(values_in(last["expected"]))
    assert r.status_code == 409 and "counts" in r.json()["error"]
    assert store.saved(batch)[1]["points"] == first["points"]  # the copies of its own numbers, carried


# --- 3. no one's work is silently replaced ---------------------------------------------------------


def test_a_hand_in_after_the_teachers_entry_waits_beside_it_for_a_decision(school):
    store, teacher, csrf, batch = school
    sheet = batch.sheets[0]
    r = teacher.post(f"/api/batches/{batch.id}/sheets/1/save", json=key_answers(sheet), headers={"x-csrf-token": csrf})
    assert r.json()["points"] == 152
    token = store.links(batch)[1].token
    student = store.student()
    assert (
        student.post(f"/api/s/{token}/handin", json={"heads": [{}]}, headers={"x-csrf-token": csrf}).status_code == 200
    )
    assert store.saved(batch)[1]["points"] == 152  # the teacher's entry still counts
    page = teacher.get(f"/batches/{batch.id}/class").text
    assert "Waiting for your decision" in page and "handed in by the student" in page
    ((newer, current),) = store.conflicts(batch)
    assert (newer.source, current.source, current.points) == ("student", "teacher", 152)
    # The teacher decides: the hand-in counts now; the entry is kept in the history.
    r = teacher.post(f"/batches/{batch.id}/revisions/{newer.rev}", data={"csrf": csrf, "action": "take"})
    assert r.status_code == 303 and store.saved(batch)[1]["points"] == 0
    assert [(h.source, h.state) for h in store.history(batch, sheet)] == [
        ("student", "current"),
        ("teacher", "replaced"),
    ]


def test_a_scan_never_replaces_a_typed_sheet_and_a_blank_page_never_replaces_written_answers(school):
    store, teacher, csrf, batch = school
    sheet = batch.sheets[1]
    save_sheet(store, batch, sheet, key_answers(sheet))
    blank = skeleton(problem_from_json(sheet["problem"]), sheet["code"])
    blank["heads"][0] = {
        step: ([""] * len(grid) if step == "sums" else [[""] * len(r) for r in grid])
        for step, grid in blank["heads"][0].items()
    }
    kept = save_sheet(store, batch, sheet, blank, source="scan")
    assert kept.saved.state == "blank" and store.saved(batch)[2]["points"] == 152
    read = save_sheet(store, batch, sheet, garbage(sheet), source="scan")
    assert read.saved.state == "conflict" and store.saved(batch)[2]["points"] == 152
    # The teacher said the scans replace what was typed: then a scan counts.
    said = save_sheet(store, batch, sheet, garbage(sheet), source="scan", replace_typed=True)
    assert said.saved.state == "current" and store.saved(batch)[2]["points"] < 152
    assert len(store.history(batch, sheet)) == 4  # nothing lost


def test_a_teachers_save_over_a_hand_in_it_never_showed_keeps_the_hand_in_for_a_decision(school):
    store, teacher, csrf, batch = school
    sheet = batch.sheets[2]
    page = teacher.get(f"/batches/{batch.id}/sheets/3").text
    base = re.search(r'data-base="([^"]*)"', page).group(1)
    token = store.links(batch)[3].token
    store.student().post(f"/api/s/{token}/handin", json=garbage(sheet), headers={"x-csrf-token": csrf})
    r = teacher.post(
        f"/api/batches/{batch.id}/sheets/3/save",
        json={**key_answers(sheet), "base": base},
        headers={"x-csrf-token": csrf},
    )
    assert r.json()["kept_newer"] is True
    ((newer, current),) = store.conflicts(batch)
    assert newer.source == "student" and current.source == "teacher"


# --- 6. guessing by verdicts --------------------------------------------------------------------------


def test_verdicts_are_given_for_a_few_hand_ins_only(school):
    store, teacher, csrf, batch = school
    token, student = store.links(batch)[2].token, store.student()
    codes = [
        student.post(
            f"/api/s/{token}/handin", json=garbage(batch.sheets[1]), headers={"x-csrf-token": csrf}
        ).status_code
        for _ in range(6)
    ]
    assert codes == [200, 200, 200, 409, 409, 409]


# --- a close that is final ------------------------------------------------------------------------


def test_a_close_is_final_for_a_hand_in_being_written(school):
    store, teacher, csrf, batch = school
    seen = store.batch(batch.id)  # what a hand-in read before the close was answered
    store.set_policy(seen, closed=True)
    with pytest.raises(Closed):
        save_sheet(store, seen, batch.sheets[0], garbage(batch.sheets[0]), "student")
    assert 1 not in store.saved(batch)
