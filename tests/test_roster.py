"""Rosters: names as plain data, and one clear error for a file that is not a class list."""

from __future__ import annotations

import pytest

from generator.roster import RosterError, parse_roster


def test_names_ids_groups_in_any_column_order():
    students = parse_roster("group;Name;id\nB;Ada Lovelace;7\nC;José Núñez;\n")
    assert [(s.name, s.id, s.group) for s in students] == [("Ada Lovelace", "7", "B"), ("José Núñez", "", "C")]


def test_only_a_name_column():
    assert [s.name for s in parse_roster("name\nA\nB\n\nC\n")] == ["A", "B", "C"]


def test_control_characters_are_dropped_and_spaces_folded():
    (s,) = parse_roster("name\n\"Ada\x00 \u202eLove\tlace\"\n")
    assert s.name == "Ada Love lace"


def test_long_names_are_cut():
    (s,) = parse_roster("name\n" + "x" * 10_000 + "\n")
    assert len(s.name) == 200


@pytest.mark.parametrize(
    "text, message",
    [("", "empty"), ("first,last\nA,B\n", "no 'name' column"), ("name\n", "no students"),
     ("name,id\n,7\n", "row 2 has no name")],
)
def test_bad_rosters(text, message):
    with pytest.raises(RosterError, match=message):
        parse_roster(text)


def test_roster_errors_in_the_cli(run, tmp_path):
    missing = run("generate", "--roster", str(tmp_path / "none.csv"), "--out", str(tmp_path))
    assert missing.code == 1 and "cannot read" in missing.err and missing.err.count("\n") == 1
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"name\n\xff\xfe\n")
    r = run("generate", "--roster", str(bad), "--out", str(tmp_path))
    assert r.code == 1 and "not UTF-8" in r.err
