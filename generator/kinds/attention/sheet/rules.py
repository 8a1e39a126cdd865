"""An attention sheet's rules box and its key's worked example: words of the sheet's language, true for its problem."""

from __future__ import annotations

import math

from generator.core.engine import hand_divisor
from generator.kinds.attention.problem import Problem, Solution
from generator.core.numbers import Cell, sheet_value
from generator.sheet.i18n import translations
from generator.sheet.layers import PRODUCT_RULE
from generator.sheet.worked import DECIMALS
from generator.sheet.worked import dot as _dot
from generator.sheet.worked import equals as _equals
from generator.sheet.worked import factor as _factor


def exact_values(problem: Problem) -> bool:
    """Whether every value of the sheet is an integer or a fraction (else the key has decimals)."""
    rules = problem.rules
    root = math.isqrt(problem.d_k)
    return rules.softmax == "base3" and (rules.scale != "exact" or root * root == problem.d_k)


def rules_lines(problem: Problem, key: bool, lang: str = "en") -> list[str]:
    """The rules box's lines, in the sheet's language, saying only what is true of this sheet."""
    _ = translations(lang).gettext
    rules, d_k = problem.rules, problem.d_k
    if rules.scale == "floor":
        divisor = hand_divisor(d_k)
        lines = [
            _(
                "Scaling: floor(x/%(divisor)s) stands for x/√%(d_k)s: divide, then round down to the whole number below, "
                "so floor(−1/%(divisor)s) = −1."
            )
            % {"divisor": divisor, "d_k": d_k}
        ]
    elif rules.scale == "exact":
        lines = [_("Scaling: divide each score by √%(d_k)s.") % {"d_k": d_k}]
    else:
        lines = [_("No scaling: use the scores as they are.")]
    lines.append(
        _("Softmax: 3^x stands for e^x; 3^0 = 1 and 3^−1 = 1/3.")
        if rules.softmax == "base3"
        else _("Softmax: use e^x.")
    )
    lines.append(
        _("Divide each power by its row sum Σ: each row of A sums to 1.")
        if problem.convention == "row"
        else _("Divide each power by its column sum Σ: each column of A sums to 1.")
    )
    lines.append(_(PRODUCT_RULE))
    lines.append(_("Each product sits where its factors' rows and columns cross."))
    if problem.causal:
        lines.append(_("Causal mask: struck-out cells are hidden keys; their weight is 0."))
    if not key:
        if exact_values(problem):
            lines.append(
                _("Write A and Z as fractions (they need not be reduced), with %(n)s decimals below.") % {"n": DECIMALS}
            )
        else:
            lines.append(
                _("From the scaling on, write each value as a decimal with %(n)s places: you need a calculator.")
                % {"n": DECIMALS}
            )
    return ["• " + line for line in lines]


# --- the worked example -----------------------------------------------------------------------


def _quotient(p: Cell, s: Cell, a: Cell) -> str:
    """p divided by s: the unreduced fraction, then the reduced one where they differ."""
    if isinstance(a, float):
        return f"{sheet_value(p)} ÷ {sheet_value(s)} ≈ {sheet_value(a)}"
    if type(p) is int and type(s) is int:
        unreduced = f"{p}/{s}".replace("-", "\u2212")
        return unreduced if unreduced == sheet_value(a) else f"{unreduced} = {sheet_value(a)}"
    return f"{_factor(p)} ÷ {_factor(s)} = {sheet_value(a)}"


def worked_example(problem: Problem, solution: Solution, lang: str = "en") -> list[list[str]]:
    """One entry of every step, worked out in full for the key: lines of expressions, each of which
    stays whole (a line may break only between them)."""
    _ = translations(lang).gettext
    sol, head = solution.heads[0], problem.heads[0]
    row, n = problem.convention == "row", problem.n_tokens
    # Entries by meaning, whatever the convention: (key i, query j), (feature r, token j).
    col = (lambda m, c: [r[c] for r in m]) if not row else (lambda m, c: list(m[c]))
    at = (lambda m, a, b: m[a][b]) if not row else (lambda m, a, b: m[b][a])
    j = n - 1 if problem.causal else 0  # the query with the most keys to weigh
    i = 0
    q, k = col(sol.Q, j), col(sol.K, i)
    w_row = list(head.W_Q[0]) if not row else [r[0] for r in head.W_Q]
    x_col = col(problem.X, j)
    names = {"q": f"q{j + 1}", "k": f"k{i + 1}", "x": f"x{j + 1}"}
    lines = [
        [
            _("%(q)s, entry 1 = row 1 of W_Q · %(x)s") % names
            if not row
            else _("%(q)s, entry 1 = %(x)s · column 1 of W_Q") % names,
            f"= {_dot(w_row, x_col)}",
            _equals(q[0]),
        ]
    ]
    score = at(sol.scores, i, j)
    lines.append([f"{names['k']} · {names['q']}", f"= {_dot(k, q)}", _equals(score)])
    scaled = at(sol.scaled, i, j)
    if problem.rules.scale == "floor":
        lines.append([f"{_('floor')}({sheet_value(score)}/{hand_divisor(problem.d_k)})", _equals(scaled)])
    elif problem.rules.scale == "exact":
        lines.append([f"{sheet_value(score)}/√{problem.d_k}", _equals(scaled)])
    base = "3" if problem.rules.softmax == "base3" else "e"
    lines.append([f"{base}^{_factor(scaled, True)}", _equals(at(sol.powers, i, j))])
    shown = [r for r in range(n) if at(sol.scaled, r, j) is not None]
    powers = [at(sol.powers, r, j) for r in shown]
    total = sol.sums[j]
    lines.append([_("Σ for %(q)s") % names, "= " + " + ".join(_factor(p, True) for p in powers), _equals(total)])
    lines.append(
        [_("A for %(q)s:") % names]
        + [_quotient(p, total, at(sol.A, r, j)) + ("," if r != shown[-1] else "") for p, r in zip(powers, shown)]
    )
    v_row = list(sol.V[0]) if not row else [r[0] for r in sol.V]
    a_col = [at(sol.A, r, j) for r in range(n)]
    lines.append(
        [
            _("Z, row 1, %(q)s = row 1 of V · column %(q)s of A") % names
            if not row
            else _("Z, %(q)s, column 1 = row %(q)s of A · column 1 of V") % names,
            f"= {_dot(v_row, a_col) if not row else _dot(a_col, v_row)}",
            _equals(at(sol.Z, 0, j)),
        ]
    )
    return lines
