"""A photo's marks (issue 58): a box is sure by the reader's own certainty of what is written, never by the key, so the marks shown before a hand-in say nothing of which boxes are right."""

from __future__ import annotations

import inspect
from fractions import Fraction

import numpy as np

from hypothesis import given
from hypothesis import strategies as st

from generator.app.photos import SURE, marked
from generator.core.cells import read_cell_text
from generator.core.grade import matches
from generator.scan.guesses import likeliest
from generator.scan.verify import CLASSES, CellRead, alone, decide, unlike


def box(*parts) -> CellRead:
    """A box read as `parts`, each its (text, probability) reads."""
    return CellRead(tuple(tuple(part) for part in parts))


def test_a_box_is_sure_where_its_reads_agree_on_one_number():
    assert alone(box([("12", 0.999)])) == ("12", 0.999)  # what no read covers counts against it
    text, share = alone(box([("12", 0.8), ("17", 0.2)]))
    assert text == "12" and abs(share - 0.8) < 1e-9
    # The same number in two writings agrees: 3/8 and 0,375 are one value.
    text, share = alone(box([("0.5", 0.6), ("0,5", 0.4)]))
    assert text == "0.5" and share > 0.999
    # A read no one writes (a leading zero) stands for nothing, and still makes the box unclear.
    assert alone(box([("01", 0.6), ("61", 0.4)]))[0] == "61"
    assert alone(box([("01", 0.6), ("61", 0.4)]))[1] < 0.5
    assert alone(box([("?", 1.0)])) == ("", 0.0)


def test_a_mark_no_character_beside_another_number_makes_the_box_unsure():
    # A stray or crossed-out mark before a 0, read as a 4 or as no character: the box may hold 0 or 40.
    assert alone(box([("40", 0.6), ("x0", 0.4)]))[1] < 0.7
    assert alone(box([("x0", 0.999), ("40", 0.001)]))[1] < 0.01
    # A point read as no character leaves no other number ("050" is no one's): the box stays sure.
    assert alone(box([("0.50", 0.9), ("0x50", 0.1)])) == ("0.50", 1.0)
    # The same in a fraction's box, its two lines read together.
    assert alone(box([("13/4", 0.6), ("x3/4", 0.4)], [("0.75", 1.0)]))[1] < 0.7


marked_reads = st.lists(
    st.tuples(st.text("0123456789x", min_size=1, max_size=4), st.floats(0.001, 1.0)), min_size=1, max_size=6
)


@given(marked_reads)
def test_a_sure_box_s_marked_reads_stand_for_no_other_number(parts):
    total = sum(p for _, p in parts)
    part = tuple((t, p / total) for t, p in parts)
    text, share = alone(box(part))
    if share >= SURE:
        v = read_cell_text(text).exact
        others = [(k, p) for t, p in part if "x" in t and (k := t.replace("x", "")) and not unlike(k)]
        assert sum(p for k, p in others if read_cell_text(k).exact != v) <= 1.0 - SURE + 1e-9


def test_a_fraction_and_its_decimals_are_read_together():
    # The decimals below say which: 3/8 (0.38) and not 3/9.
    text, share = alone(box([("3/9", 0.55), ("3/8", 0.45)], [("0.38", 1.0)]))
    assert text == "3/8 0.38" and share > 0.9
    assert alone(box([("1/7", 0.5), ("1/2", 0.5)], [("0.50", 0.5), ("0.14", 0.5)]))[1] < 0.6


def test_the_best_guess_leaves_out_what_is_no_character():
    # A crossed-out digit beside the one meant; a stray mark; nothing readable at all.
    assert likeliest(box([("x0", 1.0)])) == ["0"]
    assert likeliest(box([("x16", 0.9), ("816", 0.1)]), 3) == ["16", "816"]
    assert likeliest(box([("x", 1.0)])) == []
    assert likeliest(box([("3/4", 0.7)], [("0.75", 0.9)])) == ["3/4 0.75"]
    # A fraction's decimals are written to two places: a point too faint to read goes before the last two.
    assert likeliest(box([("13/6", 1.0)], [("217", 1.0)])) == ["13/6 2.17"]
    # Decimals that are no number with the fraction (a shadow's edge read as an 8): the fraction alone.
    assert likeliest(box([("17/6", 0.9)], [("8", 0.5), ("9", 0.2)])) == ["17/6"]
    # The next reads, each a number someone writes, once: "01" is no one's.
    assert likeliest(box([("9", 0.6), ("4", 0.3), ("01", 0.05), ("x4", 0.05)]), 4) == ["9", "4"]


def test_a_mark_is_made_of_the_box_s_reads_alone():
    """The rule itself: nothing that knows the key reaches a photo's mark."""
    assert list(inspect.signature(alone).parameters) == ["read"]
    assert list(inspect.signature(marked).parameters) == ["key", "read"]
    sure = marked((1, "Q", 0, 0), box([("7", 0.999)]))
    assert sure.sure and sure.value == "7"
    unsure = marked((1, "Q", 0, 0), box([("7", 0.9), ("1", 0.1)]))
    assert not unsure.sure and unsure.value == "7" and unsure.others == ("1",)
    blank = marked((1, "Q", 0, 0), box())
    assert blank.sure and blank.value == ""


digits = st.text("0123456789", min_size=1, max_size=4)
reads = st.lists(
    st.tuples(
        st.one_of(digits, st.builds("-{}".format, digits), st.builds("{}/{}".format, digits, digits)),
        st.floats(0.001, 1.0),
    ),
    min_size=1,
    max_size=6,
)


@given(reads)
def test_what_is_called_sure_is_a_number_read_and_as_sure_as_verification_would_need(parts):
    total = sum(p for _, p in parts)
    part = tuple((t, p / total) for t, p in parts)
    text, share = alone(box(part))
    assert 0.0 <= share <= 1.0 + 1e-9
    if share >= SURE:
        entry = read_cell_text(text)
        assert entry.kind == "value" and text in [t for t, _ in part]
        value = entry.exact if entry.exact is not None else Fraction(entry.decimal[0])
        # Whatever the key: a box read this surely as v is what verification accepts as v when v is the key.
        assert decide(box(part), value, None)[0] == "accepted"


def rows(text: str, blur: dict[int, dict[str, float]] = {}) -> np.ndarray:
    """A line's class probabilities as the network gives them: each character `text` holds at 0.96,
    or as `blur` says for the characters at its positions."""
    out = np.full((len(text), len(CLASSES)), 0.04 / (len(CLASSES) - 1), np.float32)
    for i, c in enumerate(text):
        for d, p in blur.get(i, {c: 0.96}).items():
            out[i, CLASSES.index(d)] = p
        out[i] /= out[i].sum()
    return out


def test_a_fraction_s_box_is_guessed_as_a_fraction_over_the_decimals_written():
    # The slash read as a 3 in a long fraction: the likeliest line is no fraction, and no number that
    # rounds to the 1.00 below it; the likeliest fraction is, and it is the guess.
    slash = {5: {"3": 0.85, "/": 0.1, "1": 0.05}}
    guesses = likeliest(CellRead((rows("59049/59086", slash), rows("1.00"))), 4)
    assert guesses[0] == "59049/59086 1.00"
    # A point read as a 1 below: the decimals' shape (one point, between digits) puts it back.
    point = {1: {"1": 0.7, ".": 0.2, ",": 0.1}}
    assert likeliest(CellRead((rows("3/4"), rows("0.75", point))))[0] == "3/4 0.75"
    # Decimals that no fraction read agrees with: the likeliest read stands.
    assert likeliest(CellRead((rows("3/4"), rows("0.99"))))[0] == "3/4 0.99"


lines = st.text("0123456789-/.,x", min_size=1, max_size=8)


@given(lines, lines, st.integers(0, 2**31 - 1))
def test_every_guess_is_a_number_someone_writes(top, below, seed):
    r = np.random.default_rng(seed)
    parts = tuple(r.dirichlet(np.full(len(CLASSES), 0.3), len(t)).astype(np.float32) for t in (top, below))
    for guess in likeliest(CellRead(parts), 4):
        assert read_cell_text(guess).kind == "value" and not unlike(guess)


@given(st.integers(-99999, 99999), st.integers(2, 99999), st.sampled_from(".,"))
def test_a_fraction_read_clearly_over_its_decimals_is_the_guess(n, m, point):
    top, below = f"{n}/{m}", f"{n / m:.2f}".replace(".", point)
    entry = read_cell_text(f"{top} {below}")
    if matches(entry, entry.exact) and not unlike(f"{top} {below}"):
        assert likeliest(CellRead((rows(top), rows(below))))[0] == f"{top} {below}"
