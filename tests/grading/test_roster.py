"""Rosters: names as plain data, and one clear error for a file that is not a class list."""

from __future__ import annotations

import pytest

from generator.sheet.roster import RosterError, parse_roster


def test_names_ids_groups_in_any_column_order():
    students = parse_roster("group;Name;id\nB;Ada Lovelace;7\nC;José Núñez;\n").students
    assert [(s.name, s.id, s.group) for s in students] == [("Ada Lovelace", "7", "B"), ("José Núñez", "", "C")]


def test_only_a_name_column():
    assert [s.name for s in parse_roster("name\nA\nB\n\nC\n").students] == ["A", "B", "C"]


def test_control_characters_are_dropped_and_spaces_folded():
    (s,) = parse_roster('name\n"Ada\x00 \u202eLove\tlace"\n').students
    assert s.name == "Ada Love lace"


def test_long_names_are_cut():
    (s,) = parse_roster("name\n" + "x" * 10_000 + "\n").students
    assert len(s.name) == 200


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ("first,last\nA,B\n", "no 'name' column"),
        ("name\n", "no students"),
        ("name,id\n,7\n", "line 2 has no name"),
    ],
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


def test_joiners_stay_controls_and_bidi_go():
    # A family emoji and a Persian name need their zero-width joiners and non-joiners.
    family, persian = "\U0001f469\u200d\U0001f467", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"
    (a, b) = parse_roster(f"name\n{family}\n\u202e{persian}\x1b[2J\n").students
    assert a.name == family and b.name == persian + "[2J"


def test_a_stray_quote_and_a_ragged_row_are_warned_about_with_their_line():
    # A stray quote is read on its own line: it never merges the rows after it.
    read = parse_roster('name\nAna\n"Bob\nCid\nDee\n')
    assert [s.name for s in read.students] == ["Ana", "Bob", "Cid", "Dee"]
    assert read.warnings == (
        "roster: line 3: a stray quote (a quote opened and never closed, or text after a closing quote)",
    )
    read = parse_roster("name\nLopez, Ana\nBen\n")
    assert [s.name for s in read.students] == ["Lopez", "Ben"]
    assert "line 2: 2 fields but the header has 1; ignored: 'Ana'" in read.warnings[0]
    with pytest.raises(RosterError, match="line 2: 2 fields.*leave out --strict"):
        parse_roster("name\nLopez, Ana\n", strict=True)


def test_roster_encodings_in_the_cli(run, tmp_path):
    utf16 = tmp_path / "excel.csv"
    utf16.write_bytes("name\nJosé Núñez\n".encode("utf-16"))
    r = run("generate", "--roster", str(utf16), "--out", str(tmp_path / "a"), "--format", "html")
    assert r.code == 0, r.err
    assert "read 1 student from" in r.err
    latin = tmp_path / "latin.csv"
    latin.write_bytes("name\nJosé Núñez\nZoë\n".encode("cp1252"))
    r = run("generate", "--roster", str(latin), "--out", str(tmp_path / "b"), "--format", "html")
    assert r.code == 1 and "try --encoding cp1252" in r.err and r.err.count("\n") == 1
    r = run(
        "generate", "--roster", str(latin), "--encoding", "cp1252", "--out", str(tmp_path / "b"), "--format", "html"
    )
    assert r.code == 0 and "read 2 students" in r.err
    assert "José Núñez" in (tmp_path / "b" / "worksheets.html").read_text()
    r = run("generate", "--roster", str(latin), "--encoding", "klingon", "--out", str(tmp_path / "c"))
    assert r.code == 2 and "unknown encoding" in r.err
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("name\nLopez, Ana\n")
    r = run("generate", "--roster", str(ragged), "--out", str(tmp_path / "d"), "--format", "html")
    assert r.code == 0 and "warning:" in r.err and "line 2: 2 fields" in r.err
    r = run("generate", "--roster", str(ragged), "--strict", "--out", str(tmp_path / "e"))
    assert r.code == 1 and not (tmp_path / "e").exists()
