"""The rules box and the worked example: words of the sheet's language, from its problem."""

from __future__ import annotations

from generator.core.engine import hand_divisor
from generator.core.numbers import (
    sheet_value,
)
from generator.core.problem import Problem, Solution


def worked_example(problem: Problem, solution: Solution, _) -> dict:
    """One dot product and one column's softmax, written out in full for the key."""
    sol = solution.heads[0]
    n = problem.n_tokens
    # The query with the most keys to weigh (the last one when masked), and its first key.
    j = n - 1 if problem.causal else 0
    i = 0
    row = problem.convention == "row"
    k = [sol.K[c][i] for c in range(len(sol.K))] if not row else list(sol.K[i])
    q = [sol.Q[c][j] for c in range(len(sol.Q))] if not row else list(sol.Q[j])
    terms = " + ".join(f"{sheet_value(a)}·{sheet_value(b)}" for a, b in zip(k, q))
    score = sol.scores[i][j] if not row else sol.scores[j][i]
    dot = f"k{i + 1} · q{j + 1} = {terms} = {sheet_value(score)}"
    column = [(r, sol.scaled[r][j], sol.powers[r][j], sol.A[r][j]) for r in range(n)] if not row else [
        (r, sol.scaled[j][r], sol.powers[j][r], sol.A[j][r]) for r in range(n)]
    shown = [c for c in column if c[1] is not None]
    base = "3" if problem.rules.softmax == "base3" else "e"
    powers = " + ".join(f"{base}^{sheet_value(s)}" for _, s, _p, _a in shown)
    values = " + ".join(sheet_value(p) for _, _s, p, _a in shown)
    total = sol.sums[j]
    weights = ", ".join(f"{sheet_value(p)}/{sheet_value(total)} = {sheet_value(a)}" for _, _s, p, a in shown)
    return {
        "dot": dot,
        "softmax": f"Σ = {powers} = {values} = {sheet_value(total)}",
        "weights": weights,
        "query": j + 1,
    }


def rules_lines(problem: Problem, key: bool, _) -> list[str]:
    """The rules box's lines, in the sheet's language."""
    rules = problem.rules
    d_k = problem.d_k
    if rules.scale == "floor":
        lines = [_("Scale: floor(x/%(divisor)s) stands for x/√%(d_k)s; round down, so floor(−1/2) = −1.")
                 % {"divisor": hand_divisor(d_k), "d_k": d_k}]
    elif rules.scale == "exact":
        lines = [_("Scale: divide each score by √%(d_k)s.") % {"d_k": d_k}]
    else:
        lines = [_("No scaling: use the scores as they are.")]
    lines.append(_("Softmax: 3^x stands for e^x; 3^0 = 1 and 3^−1 = 1/3.") if rules.softmax == "base3"
                 else _("Softmax: use e^x."))
    lines.append(_("Divide each power by its row sum Σ: each row of A sums to 1.") if problem.convention == "row"
                 else _("Divide each power by its column sum Σ: each column of A sums to 1."))
    lines.append(_("Each product sits where its factors' rows and columns cross."))
    if problem.causal:
        lines.append(_("Causal mask: struck-out cells are hidden keys; their weight is 0."))
    if not key:
        lines.append(_("Write A and Z as fractions, with two decimals below."))
    return ["• " + line for line in lines]
