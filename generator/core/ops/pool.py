"""A pool: each cell the largest of its 2 × 2 block of the input (stride 2), a map half as tall and half as wide."""

from __future__ import annotations

from typing import Optional, Sequence

from generator.core.numbers import Number
from generator.core.ops.base import Operation, Values
from generator.core.words import N_
from generator.core.written import factor


def pooled(h: Sequence[Sequence[Optional[Number]]]) -> Values:
    """Each cell (i, j): the largest of h's rows 2i, 2i+1 and columns 2j, 2j+1 (None where one is missing)."""
    out = []
    for i in range(len(h) // 2):
        row = []
        for j in range(len(h[0]) // 2):
            block = [h[2 * i + u][2 * j + v] for u in (0, 1) for v in (0, 1)]
            row.append(None if None in block else max(block))
        out.append(row)
    return out


class Pool(Operation):
    """Each cell: the largest of its 2 × 2 block."""

    name = "pool"
    words = (N_("the largest of %(a)s's 2 × 2 block at rows %(r)s, columns %(c)s"),) * 2

    def formula(self, op, symbols, row, i, j, flat, _):
        names = {"a": symbols[0], "r": f"{2 * i + 1}–{2 * i + 2}", "c": f"{2 * j + 1}–{2 * j + 2}"}
        return _(self.words[row]) % names

    def title(self, op, face, label, symbols):
        return label if "=" in label else f"{label} = max-pool({symbols[0]})"

    def work(self, op, step, values, i, j, symbols, _):
        h = values[step.inputs[0]]
        block = [h[2 * i + u][2 * j + v] for u in (0, 1) for v in (0, 1)]
        lit = [(step.inputs[0], 2 * i + u, 2 * j + v) for u in (0, 1) for v in (0, 1)]
        return lit, f"{step.face.symbol}: " + _("the largest of %(xs)s") % {
            "xs": ", ".join(factor(t, True) for t in block)
        }


POOL = Pool()
