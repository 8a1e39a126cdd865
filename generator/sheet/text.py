"""A solution as readable plain text: aligned matrices, step by step, decimals beside A and Z."""

from __future__ import annotations

from generator.core.engine import hand_divisor
from generator.core.numbers import Matrix, cell_str, decimal_str


def matrix_lines(m: Matrix, places: int = 3) -> list[str]:
    """A matrix as bracketed lines with right-aligned columns."""
    cells = [[cell_str(x, places) for x in row] for row in m]
    widths = [max(len(row[j]) for row in cells) for j in range(len(cells[0]))]
    return ["[ " + "  ".join(c.rjust(w) for c, w in zip(row, widths)) + " ]" for row in cells]


def decimal_lines(m: Matrix, places: int) -> list[str]:
    """A matrix of numbers rounded to `places` decimals, as bracketed aligned lines."""
    return matrix_lines(tuple(tuple(decimal_str(x, places) for x in row) for row in m))


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


def solution_text(solution, places: int = 3) -> str:
    """The whole solution, step by step, as a person would write it out."""
    p = solution.problem
    if p.kind == "ffn":
        return _ffn_text(solution, places)
    if p.kind == "transformer":
        return _block_text(solution, places)
    rules = p.rules
    rules_words = "hand rules" if rules.hand else "custom rules"
    header = [
        f"Self-attention, {p.convention} convention, {rules_words} "
        f"(scale: {rules.scale}, softmax: {rules.softmax})" + (", causal mask" if p.causal else ""),
        f"n = {p.n_tokens} tokens, d_model = {p.d_model}, d_k = {p.d_k}, d_v = {p.d_v}, "
        f"{len(p.heads)} head{'s' if len(p.heads) > 1 else ''}",
    ]
    if p.code:
        header.append(f"sheet code: {p.code}")
    parts = ["\n".join(header), _block(_titled("X", p.X), matrix_lines(p.X))]
    parts += _attention_parts(p, solution, places)
    return "\n\n".join(parts) + "\n"


def _attention_parts(p, solution, places: int) -> list[str]:
    """Every head's steps, the concatenation and W_O's output (an attention problem, or a block's)."""
    row = p.convention == "row"
    rules = p.rules
    parts = []
    if rules.scale == "floor":
        scale_title = f"S' = floor(S / {hand_divisor(p.d_k)})   (by hand, in place of S / √{p.d_k})"
    elif rules.scale == "exact":
        scale_title = f"S' = S / √{p.d_k}"
    else:
        scale_title = "S' = S   (no scaling)"
    base = "3" if rules.softmax == "base3" else "e"
    along = "row" if row else "column"
    for h, (head, sol) in enumerate(zip(p.heads, solution.heads), start=1):
        if len(p.heads) > 1:
            parts.append(f"=== Head {h} ===")
        for name, weights, result in (("Q", head.W_Q, sol.Q), ("K", head.W_K, sol.K), ("V", head.W_V, sol.V)):
            product = f"X·W_{name}" if row else f"W_{name}·X"
            parts.append(
                _block(
                    f"W_{name} and {name} = {product}",
                    side_by_side(matrix_lines(weights), matrix_lines(result)),
                )
            )
        scores_title = "S = Q·Kᵀ   (rows: queries, columns: keys)" if row else "S = Kᵀ·Q   (rows: keys, columns: queries)"
        parts.append(_block(scores_title, matrix_lines(sol.scores)))
        masked = "   (— : masked by the causal mask)" if p.causal else ""
        parts.append(_block(scale_title + masked, matrix_lines(sol.scaled, places)))
        parts.append(_block(f"E = {base}^S'", matrix_lines(sol.powers, places)))
        sums = ", ".join(cell_str(s, places) for s in sol.sums)
        parts.append(f"{along} sums of E: {sums}")
        parts.append(
            _block(
                f"A = E / {along} sum   (each {along} sums to 1)",
                side_by_side(matrix_lines(sol.A, places), ["≈"], decimal_lines(sol.A, places), gap=" "),
            )
        )
        parts.append(
            _block(
                "Z = A·V" if row else "Z = V·A",
                side_by_side(matrix_lines(sol.Z, places), ["≈"], decimal_lines(sol.Z, places), gap=" "),
            )
        )
    if len(p.heads) > 1:
        how = "side by side" if row else "stacked"
        parts.append(
            _block(
                f"Z_concat: the heads' Z {how}",
                side_by_side(matrix_lines(solution.Z, places), ["≈"], decimal_lines(solution.Z, places), gap=" "),
            )
        )
    if p.W_O is not None and solution.output is not None:
        product = "Z_concat·W_O" if row else "W_O·Z_concat"
        parts.append(_block("W_O", matrix_lines(p.W_O)))
        parts.append(
            _block(
                f"output = {product}",
                side_by_side(
                    matrix_lines(solution.output, places), ["≈"], decimal_lines(solution.output, places), gap=" "
                ),
            )
        )
    return parts



def _exact_lines(m: Matrix, places: int) -> list[str]:
    """A matrix, with its decimals beside it when it holds a fraction."""
    if all(isinstance(x, int) for row in m for x in row):
        return matrix_lines(m)
    return side_by_side(matrix_lines(m, places), ["≈"], decimal_lines(m, places), gap=" ")


def _with_bias(w: Matrix, b: tuple, row: bool) -> Matrix:
    """A weight matrix with its bias as one more column (a row, in the row convention), as by hand."""
    return tuple(w) + (tuple(b),) if row else tuple(tuple(r) + (x,) for r, x in zip(w, b))


def _ffn_parts(p, solution, source: str, places: int) -> list[str]:
    """The FFN's steps on `source` (X, or a block's R)."""
    row = p.convention == "row"
    first = f"H_pre = {source}·W1 + b1" if row else f"H_pre = W1·{source} + b1"
    second = "Y = H·W2 + b2" if row else "Y = W2·H + b2"
    bias = "the last row: b1" if row else "the last column: b1"
    parts = [_block(f"[W1 | b1] ({bias}) and {first}", side_by_side(
                 matrix_lines(_with_bias(p.W1, p.b1, row)), _exact_lines(solution.H_pre, places))),
             _block("H = ReLU(H_pre) = max(0, H_pre)", _exact_lines(solution.H, places)),
             _block(f"[W2 | b2] and {second}", side_by_side(
                 matrix_lines(_with_bias(p.W2, p.b2, row)), _exact_lines(solution.Y, places)))]
    if getattr(solution, "out", None) is not None:
        parts.append(_block(f"out = {source} + Y", _exact_lines(solution.out, places)))
    return parts


def _ffn_text(solution, places: int) -> str:
    p = solution.problem
    header = [f"Feed-forward layer, {p.convention} convention" + (", with the residual" if p.residual else ""),
              f"n = {p.n_tokens} tokens, d_model = {p.d_model}, d_ff = {p.d_ff}"]
    if p.code:
        header.append(f"sheet code: {p.code}")
    parts = ["\n".join(header), _block(_titled("X", p.X), matrix_lines(p.X))]
    return "\n\n".join(parts + _ffn_parts(p, solution, "X", places)) + "\n"


def _block_text(solution, places: int) -> str:
    p = solution.problem
    row = p.convention == "row"
    given = p.attention == "given"
    header = [f"Transformer block, {p.convention} convention, attention {p.attention}",
              f"n = {p.n_tokens} tokens, d_model = {p.d_model}, d_ff = {p.d_ff}"]
    if p.code:
        header.append(f"sheet code: {p.code}")
    parts = ["\n".join(header), _block(_titled("X", p.X), matrix_lines(p.X))]
    if given:
        parts.append(_block("A (given)", _exact_lines(p.A, places)))
        parts.append(_block("Z = A·X" if row else "Z = X·A", _exact_lines(solution.Z, places)))
        attended = "Z"
    else:
        parts += _attention_parts(p.attention_problem(), solution, places)
        attended = "output" if p.W_O is not None else "Z"
    parts.append(_block(f"R = X + {attended}", _exact_lines(solution.R, places)))
    return "\n\n".join(parts + _ffn_parts(p, solution, "R", places)) + "\n"


def _titled(name: str, m: Matrix) -> str:
    return f"{name} ({len(m)}×{len(m[0])})"
