"""A solution of any kind as readable plain text: aligned matrices, step by step, in the order a student works, decimals beside fractions.

Derived from the kind's graph: each step's face names it (its label in the problem's
convention), its operation what to add to the title (core/ops: a rule's formula, a division's terms); the
copies a student writes out again are left out; a given weight is shown beside the first product
it makes. Only the header is the kind's own words (its steps' `describe`).
"""

from __future__ import annotations

from generator.core.graph import evaluate
from generator.core.registry import kind_of
from generator.core.numbers import Matrix, cell_str, decimal_str, normalize
from generator.core.problem import transpose


def matrix_lines(m: Matrix, places: int = 3) -> list[str]:
    """A matrix as bracketed lines with right-aligned columns."""
    cells = [[cell_str(x, places) for x in row] for row in m]
    widths = [max(len(row[j]) for row in cells) for j in range(len(cells[0]))]
    return ["[ " + "  ".join(c.rjust(w) for c, w in zip(row, widths)) + " ]" for row in cells]


def decimal_lines(m: Matrix, places: int) -> list[str]:
    """A matrix of numbers rounded to `places` decimals, as bracketed aligned lines."""
    return matrix_lines(tuple(tuple("—" if x is None else decimal_str(x, places) for x in row) for row in m))


def side_by_side(*blocks: list[str], gap: str = "   ") -> list[str]:
    """Blocks of lines placed next to each other, each padded to its own width."""
    height = max(len(b) for b in blocks)
    widths = [max(len(line) for line in b) for b in blocks]
    lines = []
    for i in range(height):
        parts = [(b[i] if i < len(b) else "").ljust(w) for b, w in zip(blocks, widths)]
        lines.append(gap.join(parts).rstrip())
    return lines


def _block(title: str, lines: list[str]) -> str:
    return title + "\n" + "\n".join("  " + line for line in lines)


def _exact_lines(m: Matrix, places: int) -> list[str]:
    """A matrix, with its decimals beside it when it holds a fraction or a real number."""
    if all(x is None or isinstance(normalize(x), int) for row in m for x in row):
        return matrix_lines(m, places)
    return side_by_side(matrix_lines(m, places), ["≈"], decimal_lines(m, places), gap=" ")


def _titled(name: str, m: Matrix) -> str:
    return f"{name} ({len(m)}×{len(m[0])})"


def solution_text(solution, places: int = 3) -> str:
    """The whole solution, step by step, as a person would write it out."""
    p = solution.problem
    kind = kind_of(p)
    work = kind.column_twin(p)
    steps = kind.steps(work)
    solved = evaluate(steps, kind.given(work))
    values = dict(solved.values)
    for key, cells in solved.skipped.items():  # a cell the route leaves empty: a dash, as a masked one
        values[key] = [[None if (i, j) in cells else x for j, x in enumerate(r)] for i, r in enumerate(values[key])]
    row = p.convention == "row"
    shown = lambda m: transpose(m) if row else tuple(map(tuple, m))  # noqa: E731  (the problem's own layout)
    faces = getattr(kind, "FACES", {})
    header = list(kind.describe(p))
    if p.code:
        header.append(f"sheet code: {p.code}")
    parts = [
        "\n".join(header),
        _block(_titled("X", shown(values[(None, "X")])), matrix_lines(shown(values[(None, "X")]))),
    ]
    seen = {(None, "X")}
    by_key = {s.key: s for s in steps}
    heads = max((s.key[0] or 0 for s in steps), default=0)
    head = None
    for step in steps:
        if step.op is None or step.op.operation.written_again:
            continue  # the student's own re-writing of a grid
        if heads > 1 and step.key[0] is not None and step.key[0] != head:
            parts.append(f"=== Head {step.key[0]} ===")
        head = step.key[0]
        face, op = step.face, step.op
        symbols = [
            by_key[k].face.symbol if k in by_key else (faces[k[1]].symbol if k[1] in faces else k[1])
            for k in step.inputs
        ]
        label = op.operation.title(op, face, face.label[row], symbols)
        note = face.note[row]
        title = f"{label}   {note}" if note else label
        result = values[step.key]
        line = op.operation.line(face, row, symbols, result, places)
        if line is not None:
            parts.append(line)
            continue
        givens = [k for k in step.inputs if k not in by_key and k not in seen]
        beside = []
        if givens and givens[0] == step.inputs[0]:
            first = givens.pop(0)
            seen.add(first)
            weights, name, taken = op.operation.beside(step, values, first, givens, symbols, row)
            seen.update(taken)
            givens = [k for k in givens if k not in taken]
            title = f"{name} and {title}"
            beside = matrix_lines(shown(weights))
        for k in givens:
            seen.add(k)
            if k[1] in faces and faces[k[1]].within:
                continue  # part of a given already shown (x1 of X)
            parts.append(
                _block(faces[k[1]].label[row] if k[1] in faces else k[1], _exact_lines(shown(values[k]), places))
            )
        lines = _exact_lines(shown(result), places)
        parts.append(_block(title, side_by_side(beside, lines) if beside else lines))
    return "\n\n".join(parts) + "\n"
