"""Reading a hand by its own other characters (scan/adapt.py): what the key's boxes teach, and what they never may."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from generator.scan.adapt import FEWEST, LOOK_SIZE, adapted, examples
from generator.scan.verify import CLASSES, CellRead, decide, joined, packed, part_probabilities

R = np.random.default_rng(4)
LOOK = {d: R.integers(0, 256, LOOK_SIZE).astype(np.float32) for d in "0123456789-/."}
"""One writer's way with each character: a shape each, written again with a little wobble."""


def shape(char: str, wobble: float = 6.0) -> np.ndarray:
    return np.clip(LOOK[char] + R.normal(0, wobble, LOOK_SIZE), 0, 255).astype(np.uint8)


def said(char: str, sure: float = 0.99, maybe: str = "", unsure: float = 0.0) -> np.ndarray:
    """The network's probabilities for a character it reads as `char` (or, `unsure`ly, as `maybe`)."""
    row = np.full(len(CLASSES), (1 - sure - unsure) / (len(CLASSES) - 1 - bool(maybe)), np.float32)
    row[CLASSES.index(char)] = sure
    if maybe:
        row[CLASSES.index(maybe)] = unsure
    return row


def box(written: str, read: str, sure: float = 0.99, maybe: str = "", unsure: float = 0.0) -> CellRead:
    """A box where `written` is in the writer's hand and the network reads it as `read`
    (`maybe`: what it reads its last character as otherwise)."""
    probs = np.stack([said(c, sure, maybe if i == len(read) - 1 else "", unsure) for i, c in enumerate(read)])
    looks = np.stack([shape(c) for c in written])
    return CellRead((packed(probs),), (looks.tobytes(),))


def sheet(misread: dict[str, str], boxes: int = 40) -> tuple[dict, dict]:
    """A sheet of one-digit and two-digit boxes, each written as the key says; the network reads
    each character through `misread` (this writer's 3 as others' 5)."""
    reads, truth = {}, {}
    for n in range(boxes):
        value = int(R.integers(0, 100))
        text = str(value)
        reads[(1, "Q", n, 0)] = box(text, "".join(misread.get(c, c) for c in text))
        truth[(1, "Q", n, 0)] = value
    return reads, truth


def verdict(read: CellRead, true, carried=None) -> str:
    return decide(read, true, carried)[0]


def test_a_hand_whose_3_the_network_reads_as_5_is_read_by_its_own_3s():
    reads, truth = sheet({"3": "5"})
    reads[(1, "K", 0, 0)] = box("3", "5", 0.55, "3", 0.4)  # the network torn: a 5, or a 3
    truth[(1, "K", 0, 0)] = 3
    assert verdict(reads[(1, "K", 0, 0)], 3) == "review"
    better = adapted(reads, truth)
    assert verdict(better[(1, "K", 0, 0)], 3) == "accepted"


def test_a_student_s_wrong_digit_is_never_made_the_key_s():
    # The writer's 5s are elsewhere on the sheet; a 5 where the key says 3 is the student's
    # error, read as a 5 by its shape whatever the network thought.
    reads, truth = sheet({})
    reads[(1, "K", 0, 0)] = box("5", "3", 0.55, "5", 0.4)
    truth[(1, "K", 0, 0)] = 3
    better = adapted(reads, truth)
    assert verdict(better[(1, "K", 0, 0)], 3) == "review"
    assert joined(better[(1, "K", 0, 0)])[0][0] == "5"


def test_the_network_and_the_hand_disagreeing_surely_send_the_box_to_review():
    # The network is sure of a 1 where this hand's 4s say 4: neither may carry the box.
    reads, truth = sheet({})
    reads[(1, "K", 0, 0)] = box("4", "1", 0.995)
    truth[(1, "K", 0, 0)] = 1
    assert verdict(reads[(1, "K", 0, 0)], 1) == "accepted"  # the network alone: a false accept
    better = adapted(reads, truth)
    assert verdict(better[(1, "K", 0, 0)], 1) == "review"


def test_a_box_is_never_its_own_evidence():
    # A character whose only look-alikes are in its own box is read by the network alone.
    reads, truth = sheet({})
    LOOK["7"] = R.integers(0, 256, LOOK_SIZE).astype(np.float32)  # a 7 unlike anything before it
    reads = {k: v for k, v in reads.items() if "7" not in str(truth[k])}
    truth = {k: truth[k] for k in reads}
    reads[(1, "K", 0, 0)] = box("77", "11", 0.7)
    truth[(1, "K", 0, 0)] = 77
    better = adapted(reads, truth)
    assert np.array_equal(better[(1, "K", 0, 0)].parts[0], reads[(1, "K", 0, 0)].parts[0])


def test_a_step_misunderstood_throughout_is_no_evidence_for_itself():
    # The student wrote 7 in every box of a step where the key says 1 (a rule misunderstood),
    # and writes no 7 elsewhere: the key calls those 7s 1s, and they must not make this one a 1.
    reads, truth = sheet({})
    reads = {k: v for k, v in reads.items() if "7" not in str(truth[k])}
    truth = {k: truth[k] for k in reads}
    for n in range(12):
        reads[(1, "scaled", n, 0)] = box("7", "1", 0.55, "7", 0.4)
        truth[(1, "scaled", n, 0)] = 1
    better = adapted(reads, truth)
    assert all(verdict(better[(1, "scaled", n, 0)], 1) == "review" for n in range(12))


def test_too_few_examples_leave_the_reads_as_they_were():
    reads, truth = sheet({"3": "5"}, boxes=FEWEST // 3)
    assert len(examples(reads, truth)[0]) < FEWEST
    assert adapted(reads, truth) is reads


def test_examples_are_the_characters_of_boxes_whose_count_is_the_key_s():
    reads = {(1, "A", 0, 0): box("3/8", "3/8"), (1, "A", 0, 1): box("12", "125"), (1, "A", 0, 2): box("-2", "-2")}
    probs = np.stack([said(c) for c in "3/8"]), np.stack([said(c) for c in "0.38"])
    looks = np.stack([shape(c) for c in "3/8"]), np.stack([shape(c) for c in "0038"])
    reads[(1, "A", 0, 3)] = CellRead(tuple(packed(p) for p in probs), tuple(x.tobytes() for x in looks))
    truth = {(1, "A", 0, 0): Fraction(3, 8), (1, "A", 0, 1): 12, (1, "A", 0, 2): -2, (1, "A", 0, 3): Fraction(3, 8)}
    reads[(1, "A", 0, 1)] = CellRead(reads[(1, "A", 0, 1)].parts, (np.stack([shape(c) for c in "125"]).tobytes(),))
    _, classes, boxes = examples(reads, truth)
    # Each "3/8" (its decimals' point is no one class: a point or a comma) and "-2"; not the
    # box whose three characters are not the key's two.
    assert [CLASSES[c] for c, b in zip(classes, boxes) if b == 3] == list("3/8038")
    assert 1 not in set(boxes.tolist())
    assert [CLASSES[c] for c, b in zip(classes, boxes) if b in (0, 2)] == list("3/8-2")


def test_a_sheet_is_read_in_its_hand_once_and_its_shapes_let_go():
    from generator.kinds.attention.draw.presets import DrawOptions
    from generator.draw.search import draw
    from generator.scan.adapt import in_own_hand
    from generator.scan.pipeline import SheetScan, Source, in_hand
    from generator.scan.verify import key_values

    problem = draw(DrawOptions(), 7)[0]
    truth = key_values(problem)
    reads = {
        key: box(str(v), str(v).replace("3", "5"), 0.55, "3", 0.4)
        for key, v in truth.items()
        if v is not None and "/" not in str(v)
    }
    sheet = SheetScan(Source("CODE", 1, problem), 1, dict(reads))
    in_hand(sheet)
    assert not any(read.looks for read in sheet.reads.values())
    expected = in_own_hand(problem, reads)
    assert any(expected[k].parts != reads[k].parts for k in reads)  # the hand was weighed
    assert all(sheet.reads[k].parts == expected[k].parts for k in reads)
    again = dict(sheet.reads)
    in_hand(sheet)  # nothing left to weigh: read in hand once
    assert sheet.reads == again


def test_a_hand_that_repeats_to_the_pixel_is_read_by_it_all_the_same():
    # Digits printed by another tool are the same bytes each time: no spacing, nothing undefined.
    printed = {c: R.integers(0, 256, LOOK_SIZE).astype(np.uint8) for c in "0123456789"}
    reads, truth = {}, {}
    for n in range(40):
        text = str([13, 31, 1, 3][n % 4])
        probs = np.stack([said(c, 0.55, "5" if c == "3" else "", 0.4) for c in text])
        key = (1, "Q" if n < 20 else "K", n, 0)
        reads[key] = CellRead((packed(probs),), (np.stack([printed[c] for c in text]).tobytes(),))
        truth[key] = int(text)
    better = adapted(reads, truth)
    assert all(np.isfinite(part_probabilities(r.parts[0])).all() for r in better.values())
    assert verdict(better[(1, "K", 39, 0)], 3) == "accepted"


def test_a_student_who_went_wrong_early_is_read_by_what_they_wrote_not_by_the_key():
    # An early mistake carried on: over half the boxes hold other values than the key's. Named by
    # the key, this writer's 3s (the network torn between a 5 and a 3) are taught as other digits;
    # named by what verifying the sheet says each box holds, they are 3s.
    import random

    from generator.core.cells import read_cell_text
    from generator.kinds.attention.draw.presets import DrawOptions
    from generator.draw.search import draw
    from generator.scan.adapt import in_own_hand
    from generator.scan.handwriting import Writer
    from generator.scan.synthetic import Student, work
    from generator.scan.verify import key_values, verify

    problem = draw(DrawOptions(), 16)[0]
    truth = key_values(problem)
    boxes = {key: False for key, v in truth.items() if v is not None}
    written = {
        key: parts[0]
        for key, parts in work(
            problem, boxes, Student(Writer.random(1), wrong=0.03, blank=0, crossed=0), random.Random(16)
        ).items()
    }
    assert sum(read_cell_text(text).exact != truth[key] for key, text in written.items()) > len(written) / 2
    reads = {
        key: box(text, text.replace("3", "5"), 0.55, "3", 0.4) if "3" in text else box(text, text)
        for key, text in written.items()
    }

    def accepted(better: dict) -> list:
        decided = [d for d in verify(problem, better) if d.verdict == "accepted"]
        assert all(read_cell_text(d.value).exact == read_cell_text(written[d.key]).exact for d in decided)
        return decided

    by_key, own = accepted(adapted(reads, truth)), accepted(in_own_hand(problem, reads))
    assert len(own) >= len(by_key) + 20


def test_a_student_who_wrote_the_key_is_named_by_it_both_times_whatever_the_rules():
    # Under the exact rules a third of the boxes hold decimals (e^x, not 3^x): verifying the
    # sheet names them as the key does, so the second reading is the first.
    from generator.kinds.attention.draw.presets import DrawOptions
    from generator.core.numbers import sheet_value
    from generator.draw.search import draw
    from generator.scan.adapt import in_own_hand
    from generator.scan.verify import key_values

    problem = draw(DrawOptions(rules="exact"), 3)[0]
    truth = {key: v for key, v in key_values(problem).items() if v is not None}
    assert any(isinstance(v, float) for v in truth.values())
    written = {key: sheet_value(v).replace("\u2212", "-") for key, v in truth.items()}
    reads = {
        key: box(text, text.replace("3", "5"), 0.55, "3", 0.4) if "3" in text else box(text, text)
        for key, text in written.items()
    }
    by_key, own = adapted(reads, truth), in_own_hand(problem, reads)
    assert any(by_key[k].parts != reads[k].parts for k in reads)  # the hand was weighed
    assert all(own[k].parts == by_key[k].parts for k in reads)


def struck(char: str) -> np.ndarray:
    """`char` in this writer's hand with a stroke through it: a third of its pixels darkened."""
    looks = shape(char).copy()
    looks[::3] = 0
    return looks


def written(*shapes: np.ndarray, read: str) -> CellRead:
    """A box of these shapes, the network reading them as `read`'s characters."""
    return CellRead((packed(np.stack([said(c) for c in read])),), (np.stack(shapes).tobytes(),))


def steps(extra: dict) -> dict:
    """A sheet of eight steps of two-digit boxes in this writer's hand, and `extra`'s boxes (step "odd")."""
    reads = {
        (1, f"S{s}", b, 0): box(f"{(s * 7 + b * 3) % 90 + 10}", f"{(s * 7 + b * 3) % 90 + 10}")
        for s in range(8)
        for b in range(5)
    }
    return {**reads, **{(1, "odd", n, 0): read for n, read in enumerate(extra.values())}}


def test_a_struck_digit_beside_one_like_the_writers_makes_its_box_a_stray():
    """A value struck out beside the one meant: the network reads the struck 7 surely as a 7, but it is
    unlike every character this writer wrote on the other steps, and its neighbour is like them."""
    from generator.scan.adapt import strays

    reads = steps(
        {
            "struck 7, then 1": written(struck("7"), shape("1"), read="71"),
            "written alike": written(shape("4"), shape("2"), read="42"),
            "all of it unlike": written(struck("3"), struck("5"), read="35"),
            "one digit, unlike": written(struck("8"), read="8"),
        }
    )
    assert strays(reads) == {(1, "odd", 0, 0)}
    few = {**dict(list(reads.items())[: FEWEST // 3]), (1, "odd", 0, 0): reads[(1, "odd", 0, 0)]}
    assert strays(few) == frozenset()  # too few digits to know a hand by


@given(st.permutations("0123456789"), st.integers(0, 8))
def test_a_stray_is_told_by_how_digits_look_never_by_what_they_are_read_as(relabel, where):
    """Key-free: the same shapes read as other digits (a key that says otherwise) make the same strays."""
    from generator.scan.adapt import strays

    reads = steps({"struck": written(struck(str(where)), shape("1"), read=f"{where}1")})
    table = str.maketrans("0123456789", "".join(relabel))

    def named(read: CellRead) -> CellRead:
        probs = part_probabilities(read.parts[0])
        return CellRead(
            (
                packed(
                    probs[:, [CLASSES.index(c.translate(table)) if c.isdigit() else i for i, c in enumerate(CLASSES)]]
                ),
            ),
            read.looks,
        )

    assert strays({key: named(read) for key, read in reads.items()}) == strays(reads) == {(1, "odd", 0, 0)}


def test_a_phone_s_sheet_has_its_strays_marked_and_a_scan_s_is_not_searched_for_them(monkeypatch):
    """Only a phone's marks ask for strays: a pile of scans never pays for the search."""
    import generator.scan.pipeline as pipeline
    from generator.scan.pipeline import SheetScan, Source, in_hand

    monkeypatch.setattr(pipeline, "in_own_hand", lambda problem, reads: reads)
    reads = steps({"struck 7, then 1": written(struck("7"), shape("1"), read="71")})
    phone = SheetScan(Source("CODE", 1, None), 1, dict(reads), marks=True)
    in_hand(phone)
    in_hand(phone)  # its shapes let go: in hand already, its marks kept
    assert {key for key, read in phone.reads.items() if read.stray} == {(1, "odd", 0, 0)}

    def searched(reads):
        raise AssertionError("a scan's sheet searched for strays")

    monkeypatch.setattr(pipeline, "strays", searched)
    scan = SheetScan(Source("CODE", 1, None), 1, dict(reads))
    in_hand(scan)
    assert not any(read.stray or read.looks for read in scan.reads.values())
