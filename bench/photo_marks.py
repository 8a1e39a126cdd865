"""What a photo's marks cost and risk (issue 58): for every kind and hand, the taps a student spends and any box called sure other than what was written, at each certainty the phone might ask.

`python bench/photo_marks.py [KIND ...]` makes a web class of three sheets of each kind, fills each
in by the project's writers, by the held-out handwriting faces and by people's own held-out digits,
photographs every page under tests/scan/test_photos.py's PHONE conditions (at an angle with desk
around it; sideways under a shadow and uneven light; turned over at 12 megapixels), reads each
photo as the server does (app/photos.photo_reads), and counts, for each certainty in SURES: the
boxes called sure other than what was written (and how many of those the teacher is asked to look
at once handed in), and each sheet's taps (one to confirm a right guess, two to pick one of the
box's next OTHERS reads, else the keys and one more). A box is sure by its own reads alone
(verify.alone), as photos.SURE asks. A measurement, not a test.
"""

from __future__ import annotations

import collections
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "server"), str(ROOT / "tests" / "scan")]

import cv2  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from test_photos import PHONE, alike, fixed_secret, lit, token_of  # noqa: E402
from waiting import made  # noqa: E402

from generator.app.photos import OTHERS, SURE, asked, marked, photo_reads, wrong_boxes  # noqa: E402
from generator.core.answers import skeleton  # noqa: E402
from generator.core.formats import problem_from_json  # noqa: E402
from generator.app.store import Store  # noqa: E402
from generator.scan.synthetic import filled_sheets  # noqa: E402
from generator.scan.guesses import likeliest  # noqa: E402
from generator.scan.verify import alone  # noqa: E402
from generator.web.app import create_app  # noqa: E402

KINDS = ("attention", "ffn", "transformer", "rnn", "moe", "mlp", "backprop", "norm", "gcn", "conv")
HANDS = {"project": "", "faces": "faces", "digits": "digits"}
"""Each group's `hands` for filled_sheets (bench/writers.py's groups)."""
SURES = (0.99, SURE, 0.998)
TARGETS = {"project": 40, "faces": 60, "digits": 60}
"""An attention sheet's taps (issue 58)."""


def boxes(kind: str, hands: str) -> list[tuple[str, str, str, float, str, bool]]:
    """Every written or read box of three sheets photographed under each PHONE condition: (sheet and
    condition, what was written, the reader's own number, its share, its likeliest reads, whether the
    teacher is asked to look at it, once handed in, where it is called sure at photos.SURE)."""
    store = Store(fixed_secret(Path(tempfile.mkdtemp()) / "data"))
    web = TestClient(create_app(store), base_url="http://127.0.0.1", follow_redirects=False)
    web.csrf = re.search(r'name="csrf" value="([^"]+)"', web.get("/").text).group(1)
    answer = web.post("/batches", data={"csrf": web.csrf, "kind": kind, "count": "3", "seed": "5"})
    batch = store.batch(made(web, answer).rsplit("/", 1)[1])
    out = []
    for n, (scan, light) in enumerate(PHONE):
        for filled in filled_sheets(batch.folder, seed=3, scan={"quality": 70, "dpi": 200, **scan}, hands=hands):
            sheet = next(s for s in batch.sheets if s["code"] == filled.code)
            problem = problem_from_json(sheet["problem"])
            for number, page in enumerate(filled.pages, start=1):
                picture = lit(page, light) if light else page
                content = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 70])[1].tobytes()
                reads, _, _ = photo_reads(batch, sheet, token_of(store, batch, filled.code), content, number)
                marks = [marked(key, read) for key, read in reads.items()]
                # Handed in as a student would: what the phone called sure kept, the rest as written.
                handed = filled.kept(skeleton(problem, problem.code), marks)
                entry = {"boxes": [m.__dict__ for m in marks], "handed": {"answers": handed}}
                asks = {(b["head"], b["step"], b["i"], b["j"]) for b in asked(entry, wrong_boxes(sheet, handed))}
                for key, read in reads.items():
                    text, share = ("", 1.0) if read.blank else alone(read)
                    guesses = [] if read.blank else likeliest(read, OTHERS + 1)
                    out.append((f"{filled.code}/{n}", filled.text(key), text, share, guesses, key in asks))
    store.close()
    return out


def counted(rows, sure: float) -> tuple[list[int], list[tuple[str, str, float, bool]]]:
    """Each sheet's taps, and the boxes called sure other than what was written (each with whether
    the teacher is asked to look at it), at certainty `sure`."""
    taps, false = collections.Counter(), []
    for sheet, written, text, share, guesses, looked in rows:
        taps[sheet] += 0
        if share >= sure:
            if not alike(text, written):
                false.append((written, text, round(share, 4), looked))
        else:
            taps[sheet] += tapped(guesses, written)
    return sorted(taps.values()), false


def tapped(guesses: list[str], written: str) -> int:
    """A student's taps on an unsure box: one to confirm the guess, two to pick another read, else
    the keys and one more."""
    if guesses and alike(guesses[0], written):
        return 1
    return 2 if any(alike(g, written) for g in guesses[1:]) else len(written) + 1


def main() -> int:
    kinds = sys.argv[1:] or KINDS
    for kind in kinds:
        for group, hands in HANDS.items():
            rows = boxes(kind, hands)
            for sure in SURES:
                taps, false = counted(rows, sure)
                target = f" (target {TARGETS[group]})" if kind == "attention" else ""
                print(
                    f"{kind:12s} {group:8s} sure at {sure}: taps {taps}, median {taps[len(taps) // 2]}{target};"
                    f" sure but not what was written: {len(false)} {false[:3]}"
                    + (f", the teacher asked to look at {sum(f[3] for f in false)}" if sure == SURE else ""),
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
