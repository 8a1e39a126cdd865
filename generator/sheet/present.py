"""A sheet worked in front of a class, one cell at a time: which factors to light up, the sum, the value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from generator.core.engine import hand_divisor
from generator.core.numbers import sheet_value
from generator.core.kinds.attention.problem import Problem, Solution
from generator.core.problem import transpose
from generator.sheet.i18n import translations
from generator.sheet.rules import _dot

Place = tuple[Optional[int], str]
"""A matrix on the sheet: (head, its view name: "X", "W_Q", "Q", "Qc", "KT", "S", ...)."""


@dataclass(frozen=True)
class Frame:
    """One moment of the walk-through: a cell revealed, the cells it comes from lit up."""

    place: Place
    """The matrix the cell is in."""
    cell: tuple[int, int]
    """The cell, in the sheet's layout (row, column), 0-based."""
    lit: tuple[tuple[Optional[int], str, Optional[int], Optional[int]], ...]
    """What it comes from: (head, view, row or None for a whole column, column or None)."""
    text: str
    """What is worked out, in the sheet's language: the rule, the products and their sum."""
    value: str
    """The cell's value, as the key writes it."""
    step: str
    """The step it belongs to (frames of one step are walked through together with a step key)."""


def frames(problem: Problem, solution: Solution, lang: str = "en") -> tuple[Frame, ...]:
    """Every cell of an attention sheet, in the order a student works it, with what it comes from."""
    _ = translations(lang).gettext
    row = problem.convention == "row"
    out: list[Frame] = []
    for h, (head, sol) in enumerate(zip(problem.heads, solution.heads), start=1):
        for name, weights, result in (("Q", head.W_Q, sol.Q), ("K", head.W_K, sol.K), ("V", head.W_V, sol.V)):
            # X is drawn again in every head's grid: the head's own copy lights up.
            left, top = ((h, "X"), (h, f"W_{name}")) if row else ((h, f"W_{name}"), (h, "X"))
            left_m, top_m = (problem.X, weights) if row else (weights, problem.X)
            out += _product(h, name, result, left, top, left_m, top_m, _)
        for view, step, m, words in (("Qc", "Q_copy", sol.Q, _("Q, copied")), ("KT", "K_T", transpose(sol.K), "Kᵀ"),
                                     ("Vc", "V_copy", sol.V, _("V, copied"))):
            source = {"Qc": "Q", "KT": "K", "Vc": "V"}[view]
            out.append(Frame((h, view), (-1, -1), ((h, source, None, None),), words, "", step))
        qc, kt = (h, "Qc"), (h, "KT")
        left, top, left_m, top_m = (qc, kt, sol.Q, transpose(sol.K)) if row else (kt, qc, transpose(sol.K), sol.Q)
        out += _product(h, "S", sol.scores, left, top, left_m, top_m, _, masked=problem.causal)
        d = hand_divisor(problem.d_k)
        for i, r in enumerate(sol.scaled):
            for j, x in enumerate(r):
                if x is None:
                    continue
                rule = (f"floor({sheet_value(sol.scores[i][j])}/{d})" if problem.rules.scale == "floor"
                        else f"{sheet_value(sol.scores[i][j])}/√{problem.d_k}" if problem.rules.scale == "exact"
                        else sheet_value(sol.scores[i][j]))
                out.append(Frame((h, "S2"), (i, j), ((h, "S", i, j),), f"{rule} = {sheet_value(x)}",
                                 sheet_value(x), "scaled"))
        base = "3" if problem.rules.softmax == "base3" else "e"
        for i, r in enumerate(sol.powers):
            for j, x in enumerate(r):
                if sol.scaled[i][j] is None:
                    continue
                out.append(Frame((h, "E"), (i, j), ((h, "S2", i, j),),
                                 f"{base}^{sheet_value(sol.scaled[i][j])} = {sheet_value(x)}", sheet_value(x), "powers"))
        for q, total in enumerate(sol.sums):
            terms = [sol.powers[q][k] if row else sol.powers[k][q] for k in range(problem.n_tokens)
                     if (sol.scaled[q][k] if row else sol.scaled[k][q]) is not None]
            lit = ((h, "E", q, None),) if row else ((h, "E", None, q),)
            out.append(Frame((h, "sums"), (q, 0) if row else (0, q), lit,
                             _("Σ for q%(q)s") % {"q": q + 1} + " = " + " + ".join(sheet_value(t) for t in terms)
                             + f" = {sheet_value(total)}", sheet_value(total), "sums"))
        for i, r in enumerate(sol.A):
            for j, x in enumerate(r):
                if sol.scaled[i][j] is None:
                    continue
                q = i if row else j
                sums = (h, "sums", q, 0) if row else (h, "sums", 0, q)
                out.append(Frame((h, "A"), (i, j), ((h, "E", i, j), sums),
                                 f"{sheet_value(sol.powers[i][j])} ÷ {sheet_value(sol.sums[q])} = {sheet_value(x)}",
                                 sheet_value(x), "A"))
        av, vc = (h, "A"), (h, "Vc")
        left, top, left_m, top_m = (av, vc, sol.A, sol.V) if row else (vc, av, sol.V, sol.A)
        out += _product(h, "Z", sol.Z, left, top, left_m, top_m, _)
    return tuple(out)


def _product(h: int, view: str, result, left: Place, top: Place, left_m, top_m, _, masked: bool = False) -> list[Frame]:
    """Each cell of a product: the row of the factor on its left · the column of the factor above it."""
    step = {"S": "scores"}.get(view, view)
    out = []
    for i, r in enumerate(result):
        for j, x in enumerate(r):
            if masked and (j > i if view == "S" and left[1] == "Qc" else i > j):
                continue  # struck out by the causal mask: nothing to work
            a, b = list(left_m[i]), [r2[j] for r2 in top_m]
            out.append(Frame((h, view), (i, j), ((left[0], left[1], i, None), (top[0], top[1], None, j)),
                             f"{view}: {_dot(a, b)} = {sheet_value(x)}", sheet_value(x), step))
    return out


def frames_json(all_frames: tuple[Frame, ...]) -> list[dict]:
    """Frames as the projector page's script reads them (heads as strings, "" outside the heads)."""
    def key(head: Optional[int], name: str) -> str:
        return f"{head or ''}:{name}"

    return [{"box": key(*f.place), "i": f.cell[0], "j": f.cell[1], "step": f.step, "text": f.text, "value": f.value,
             "lit": [{"box": key(hd, name), "i": i, "j": j} for hd, name, i, j in f.lit]} for f in all_frames]
