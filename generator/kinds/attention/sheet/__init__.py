"""Attention's sheet, as every kind's sheet offers it: its view for a template, its check that it prints, its grids for a screen form.

Where each head's matrices go is `arrangement`, how they are sized and fitted to the page
`views` (the grid after the heads `final`), the rules box and worked example `rules`, a key's unreduced fractions `unreduced`.
"""

from __future__ import annotations

from generator.core.faces import N_
from generator.kinds.attention.sheet.arrangement import final_arrangement
from generator.kinds.attention.sheet.final import final_matrices
from generator.kinds.attention.sheet.views import attention_fits, attention_view, head_layout
from generator.sheet.grid import grid
from generator.sheet.i18n import translations

TITLE = N_("Self-attention by hand")
"""The sheet's title where the batch gives none."""

view = attention_view
"""Everything the template needs for one worksheet, answer key or graded sheet."""
check_fits = attention_fits
"""Raise LayoutError now if a sheet of the problem cannot be printed legibly."""


def head_blocks(problem, solution, lang: str = "en") -> list:
    """Each head's grids as the printed sheet places them (at full size), for a screen form."""
    from generator.sheet.entry import Block

    _ = translations(lang).gettext
    blocks = []
    for h in range(len(problem.heads)):
        m, grids, stacked = head_layout(problem, solution, h, False, lang)
        title = _("Head %(n)s") % {"n": h + 1} if len(problem.heads) > 1 else ""
        beside = problem.convention == "column" and not stacked  # projections left, attention right, as on paper
        blocks.append(
            Block(h + 1, title, tuple(grids[name] for name in ("proj", "att", "out") if name in grids), m, beside)
        )
    return blocks


def form_blocks(problem, solution, lang: str = "en") -> list:
    """The sheet's grids for a screen form: each head's, then the concatenation and W_O's."""
    from generator.sheet.entry import Block

    blocks = head_blocks(problem, solution, lang)
    m = final_matrices(problem, solution, False, lang)
    if m is not None:
        blocks.append(Block(None, "", (grid(final_arrangement(problem.convention, m)),), m))
    return blocks
