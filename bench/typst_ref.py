"""The Typst reference: the same sheets compiled by Typst, for the benchmark to compare against.

Each page has the same header, the same matrices with the same values at the same places (taken
from attnsheet's own layout), the same fonts (the bundled Inter and Noto Sans Mono subsets) and
colours, and the rules box; a matrix is a Typst table, as a Typst user would write it. A bench-only
extra (`pip install typst`), never a runtime dependency.

    python bench/typst_ref.py --count 30 --seed 2026 --out class.pdf   # a class: 60 pages
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.core.registry import solve  # noqa: E402
from generator.kinds.attention.draw.presets import DrawOptions  # noqa: E402
from generator.draw.search import draw  # noqa: E402
from generator.sheet.grid import grid  # noqa: E402
from generator.kinds.attention.sheet.rules import rules_lines  # noqa: E402
from generator.sheet.style import CHAR_PT, GAP, LINE_PT, STYLES, TONES  # noqa: E402
from generator.kinds.attention.sheet.views import arrangement, head_matrices  # noqa: E402

FONTS = str(ROOT / "templates" / "fonts")


def _escape(text: str) -> str:
    return "".join("\\" + ch if ch in '\\#*_`$<>@[]"~/=-+' else ch for ch in text)


def _matrix(m, x: float, y: float, key: bool) -> str:
    """One matrix as a Typst table of its cells, at (x, y) in points."""
    tone = TONES[m.tone]
    style = STYLES["answers" if m.answers else "given"]
    cells = []
    for i in range(m.rows):
        line = m.lines[i * m.cell_h] if m.lines else ""
        second = m.lines[i * m.cell_h + 1] if m.lines and m.cell_h == 2 else ""
        for j in range(m.cols):
            value = line[j * m.cell_w : (j + 1) * m.cell_w].strip()
            below = second[j * m.cell_w : (j + 1) * m.cell_w].strip()
            text = _escape(value) + (f" \\ {_escape(below)}" if below else "")
            cells.append(f"[{text}]")
    stroke = '0.5pt + rgb("#8a8a8a")' if m.boxes else "none"
    return (
        f'#place(dx: {x}pt, dy: {y}pt)[#block(fill: rgb("{tone.tint}"), stroke: (left: 1.2pt + rgb("{tone.ink}"), '
        f'right: 1.2pt + rgb("{tone.ink}")))[#set text(font: "Noto Sans Mono", size: 10pt, fill: rgb("{style.colour}"), '
        f"weight: {style.weight})\n#table(columns: ({', '.join([f'{m.cell_w * CHAR_PT}pt'] * m.cols)}), "
        f"rows: {m.cell_h * LINE_PT}pt, inset: 0pt, align: center + horizon, stroke: {stroke}, {', '.join(cells)})]]\n"
        f'#place(dx: {x}pt, dy: {y - LINE_PT}pt)[#text(font: "Noto Sans Mono", size: 7.5pt, fill: rgb("#5a5a5a"))'
        f"[{_escape(m.caption_text)}]]\n"
    )


def page(problem, solution, key: bool, name: str = "") -> str:
    """One worksheet or key page of `problem` as Typst markup."""
    m = head_matrices(problem, solution, 0, key, "en")
    grids = {g: grid(rows) for g, rows in arrangement(problem.convention, m).items()}
    out = [
        '#text(size: 7.5pt, weight: 600, fill: rgb("#6b6b6b"))[' + ("ANSWER KEY" if key else "WORKSHEET") + "]\n",
        "#text(size: 15pt, weight: 600)[Self-attention by hand]\n\n",
        f"Name #box(width: 62mm, stroke: (bottom: 0.6pt))[{_escape(name)}] Date #box(width: 24mm, stroke: (bottom: 0.6pt))[] "
        "Group #box(width: 24mm, stroke: (bottom: 0.6pt))[]\n",
        f'#place(top + right)[#text(font: "Noto Sans Mono", size: 11pt, weight: 700)[{_escape(problem.code or "")}]]\n',
        "#block(height: 570pt)[\n",
    ]
    left = 0.0
    for g in ("proj", "att") if problem.convention == "column" else ("proj",):
        for c in grids[g].cells:
            out.append(_matrix(c.m, left + c.col * CHAR_PT, c.body_row * LINE_PT + 12, key))
        left += (grids[g].cols + GAP) * CHAR_PT
    out.append("]\n")
    rules = "\n".join(_escape(line) + " \\" for line in rules_lines(problem, key, "en"))
    out.append(
        f'#block(width: 82mm, stroke: 0.8pt + rgb("#bbbbbb"), inset: 6pt, radius: 4pt)[#set text(size: 8pt)\n'
        f"*Rules* \\\n{rules}\n]\n"
    )  # a line break before the bracket: "\\]" would escape it
    return "".join(out)


PREAMBLE = (
    '#set page(paper: "a4", margin: (top: 12mm, right: 13mm, bottom: 14mm, left: 13mm), '
    'footer: context [#set text(size: 7.5pt, fill: rgb("#555555")); attnsheet #h(1fr) page #counter(page).display()])\n'
    '#set text(font: "Inter", size: 9pt, fill: rgb("#1b1b1b"))\n'
)


def document(problems, solutions) -> str:
    """A class: every worksheet, then every key, one page each."""
    pages = [page(p, s, False) for p, s in zip(problems, solutions)] + [
        page(p, s, True) for p, s in zip(problems, solutions)
    ]
    return PREAMBLE + "\n#pagebreak()\n".join(pages)


def compile_pdf(markup: str) -> bytes:
    """Typst's PDF of the markup, with the bundled fonts only."""
    import typst

    return typst.compile(markup.encode("utf-8"), font_paths=[FONTS], ignore_system_fonts=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    start = time.perf_counter()
    problems = draw(DrawOptions(), args.seed, args.count)
    solutions = [solve(p) for p in problems]
    args.out.write_bytes(compile_pdf(document(problems, solutions)))
    print(f"typst: {2 * args.count} pages in {time.perf_counter() - start:.2f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
