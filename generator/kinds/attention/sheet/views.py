"""What an attention sheet shows: every matrix of every head, placed and fitted to the page.

Each grid's label, caption and tone are its step's face (kinds/attention/steps); its view
is named as its step is, so a graded sheet's marks and a scanner's boxes find it by that name.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Optional

from generator.core.errors import LayoutError
from generator.kinds.attention.problem import Problem, Solution
from generator.kinds.attention.sheet.arrangement import HEADING_BANDS, KEPT_BANDS, arrangement
from generator.kinds.attention.sheet.faced import face_matrix, marked_views, stepped
from generator.kinds.attention.sheet.final import final_grid
from generator.kinds.attention.sheet.rules import rules_lines, worked_example
from generator.kinds.attention.sheet.unreduced import unreduced_forms
from generator.kinds.attention.steps import FACES, HEAD_STEPS
from generator.core.problem import transpose
from generator.core.student import Student
from generator.sheet.fit import (
    CONTENT_WIDTH_PT,
    FRAME_WIDTH_PT,
    MIN_SCALE,
    MIN_SIDE_BY_SIDE_SCALE,
    page_room,
    rules_height,
    rules_width,
    stack_height,
    stretch_to,
    worked_height,
    worked_panel,
    worked_width,
)
from generator.sheet.graded import GradedSheet, score_panel
from generator.sheet.grid import GridView, cell_width, grid
from generator.sheet.i18n import translations
from generator.sheet.look import SCORE_GAP_PT, SPACED_PT
from generator.sheet.model import Settings
from generator.sheet.panel import (
    band_panels,
    grid_panel,
    side_by_side,
    side_by_side_cols,
)
from generator.sheet.sheetview import HeadView, SheetView
from generator.sheet.style import (
    RULES_MAX_PT,
    raster_width,
)


def _masked(problem: Problem, n: int, row: bool) -> tuple[tuple[int, int], ...]:
    """Struck-out cells of an n×n score-shaped matrix: keys after their query."""
    if not problem.causal:
        return ()
    # Column layout: rows are keys i, columns queries j, masked when i > j; row layout transposes.
    return tuple((j, i) if row else (i, j) for i in range(n) for j in range(n) if i > j)


RULES_MIN_PT = 125.0
"""The narrowest the rules box may be, beside a grid."""


WORKED_SLACK_PT = 12.0
"""Kept free beside a worked example: the rules box beside shorter projections may be the
taller of the two by a few points."""

READ_LEAST_STRETCH = 0.8
"""The lines of a sheet nobody writes on may be this much shorter than a worksheet's: a graded
sheet's, to make room for its score; a row-convention key's, for its worked example."""


def _head_grids(
    problem: Problem,
    solution: Solution,
    h: int,
    key: bool,
    lang: str,
    blank: bool = False,
    marks: Optional[dict] = None,
    paper: str = "letter",
    header_pt: float = 0.0,
    worked_pt: float = 0.0,
    framed: Optional[bool] = None,
    flows: bool = False,
) -> dict:
    """One head's matrices placed in grids: proj (projections), att (attention), out (row layout);
    `worked_pt`, the worked example's height, which follows a row-convention head.

    `stacked` is set when the side-by-side layout would not fit a page: the grids then follow
    one another, row by row, scaled down as much as the widest needs. A single head that fits
    its page grows its writing lines to use it.
    """
    m = head_matrices(problem, solution, h, key, lang, blank, marks)
    grids = {name: grid(rows) for name, rows in arrangement(problem.convention, m).items()}
    framed = len(problem.heads) > 1 if framed is None else framed  # a block's head is framed too
    # A graded sheet keeps its worksheet's layout (the score in its header takes room from
    # the grids' lines instead: nobody writes on it).
    room = page_room(paper, framed)
    row = problem.convention == "row"
    # The rules box goes with the first head, below the projections in the column convention
    # (and in the row convention where it fits neither beside them nor beside the output).
    rules = SPACED_PT + rules_height(rules_lines(problem, False, lang), grids["proj"].width_pt) if h == 0 else 0.0
    side_by_side = max(g.width_pt for g in grids.values()) if row else side_by_side_width(grids["proj"], grids["att"])
    # A framed row head of several holds its key's worked example after its output: counted,
    # so that a frame too tall for a page flows instead of being split where it would not fit.
    # (A block's framed head passes its worked example in either convention: it goes under the rules box.)
    below = (worked_pt if framed else 0.0) if row else rules + (worked_pt if framed else 0.0)
    tall = any(stack_height(stack) > room for stack in stacks(problem, grids, below))
    # A little too wide: shrink a little and keep the one-page layout; much too wide, or too
    # tall: grids one after the other, scaled to the widest. Several heads are framed: narrower.
    width = FRAME_WIDTH_PT if framed else CONTENT_WIDTH_PT
    scale = min(1.0, width / side_by_side)
    stacked = tall or scale < MIN_SIDE_BY_SIDE_SCALE or flows  # `flows`: a block's head, before its layers
    if stacked:
        if problem.convention == "row":
            # One band after another: the scaled scores, the powers and the sums go below the
            # scores (elementwise, on the same key columns), not five matrices abreast.
            grids["att"] = grid(arrangement("row", m, stacked=True)["att"])
        scale = min(1.0, width / max(g.width_pt for g in grids.values()))
    if scale < MIN_SCALE:
        widest = max(grids.values(), key=lambda g: g.width_pt)
        raise LayoutError(
            f"{problem.n_tokens} tokens: a head's grid would be {widest.width_pt:.0f} pt wide where a page "
            f"has {width:.0f} (its text under 7 pt); use fewer --tokens, a smaller --d-model or "
            "--d-k, or a lower --max-sum or --max-score (shorter fractions)"
        )
    if scale < 1.0:
        scale = math.floor(scale * 100) / 100
        grids = {name: replace(g, scale=scale) for name, g in grids.items()}
    beside = row and grids["proj"].width_pt + SPACED_PT + RULES_MIN_PT <= width
    # Not beside the projections (long captions, as in Spanish): beside the output grid, the
    # narrowest band, rather than below the projections, where it pushed A and Z off the page.
    beside_out = row and not beside and grids["out"].width_pt + SPACED_PT + RULES_MIN_PT <= width
    out_apart = False
    if not stacked and not framed:
        page = page_room(paper, framed, header_pt)
        below = 0.0 if row and (beside or beside_out) else rules
        stretch = stretch_to(stacks(problem, grids, below), page, READ_LEAST_STRETCH if header_pt else 1.0)
        if row and worked_pt:
            # A row-convention key's worked example follows the output: its lines give it room
            # where shorter lines make it fit; else the output starts the next page, above it.
            with_worked = stacks(problem, grids, below + worked_pt + WORKED_SLACK_PT)
            fits = stretch_to(with_worked, page, READ_LEAST_STRETCH)
            out_apart = stack_height(with_worked[0], fits) > page
            stretch = stretch if out_apart else fits
        grids = {name: replace(g, stretch=stretch) for name, g in grids.items()}
    return {
        **grids,
        "stacked": stacked,
        "beside": beside,
        "beside_out": beside_out,
        "out_apart": out_apart,
        "matrices": m,
    }


def stacks(problem: Problem, grids: dict, below: float) -> list[tuple[list[GridView], float]]:
    """What is stacked on a page, column by column: (grids one below another, the height of what
    else is there: gaps, and `below`, the rules box's height when it is under the projections)."""
    if problem.convention == "row":
        return [([grids["proj"], grids["att"], grids["out"]], 2 * SPACED_PT + below)]
    return [([grids["att"]], 0.0), ([grids["proj"]], below)]


def head_layout(
    problem: Problem, solution: Solution, h: int, key: bool, lang: str = "en", blank: bool = False
) -> tuple[dict, dict[str, GridView], bool]:
    """A head as the printed sheet places it: its matrices by name, its grids at full size (a
    screen scales itself), and whether they follow one another rather than sit side by side."""
    g = _head_grids(problem, solution, h, key, lang, blank)
    grids = {name: replace(g[name], scale=1.0, stretch=1.0) for name in ("proj", "att", "out") if name in g}
    return g["matrices"], grids, g["stacked"]


def side_by_side_width(left: GridView, right: GridView) -> float:
    """Width of `side_by_side(left, right)`."""
    return round(raster_width(side_by_side_cols(left, right)) * left.scale, 2)


def head_view(
    problem: Problem,
    solution: Solution,
    h: int,
    key: bool,
    settings: Settings,
    marks: Optional[dict] = None,
    header_pt: float = 0.0,
    worked_pt: float = 0.0,
    framed: Optional[bool] = None,
    flows: bool = False,
) -> HeadView:
    """One head as the template draws it: its panels, and where the rules box goes."""
    grids = _head_grids(
        problem,
        solution,
        h,
        key,
        settings.lang,
        settings.blank,
        marks,
        settings.paper,
        header_pt,
        worked_pt,
        framed,
        flows,
    )
    common = {
        "beside": grids["beside"],
        "beside_out": grids["beside_out"],
        "proj_width_pt": grids["proj"].width_pt,
        "out_apart": grids["out_apart"],
    }
    proj_left = grids["proj"].width_pt + SPACED_PT
    if grids["stacked"]:
        kept = KEPT_BANDS[problem.convention]
        bands = tuple(
            (name, tuple(band_panels(grids[name], kept[name]))) for name in ("proj", "att", "out") if name in grids
        )
        again = HEADING_BANDS[problem.convention]
        return HeadView(stacked=True, rules_left_pt=proj_left, bands=bands, again=again, **common)
    if "out" not in grids:
        # The rules box follows its panel in the flow, pulled up below the projections (placing
        # the panel absolutely instead costs WeasyPrint a few milliseconds a page).
        both = side_by_side(grids["proj"], grids["att"])
        margin = grids["proj"].height_pt + SPACED_PT - both.height_pt
        return HeadView(stacked=False, rules_left_pt=proj_left, rules_margin_pt=round(margin, 2), both=both, **common)
    proj, att, out = (grid_panel(grids[name]) for name in ("proj", "att", "out"))
    if grids["beside_out"]:
        left, margin = grids["out"].width_pt + SPACED_PT, -out.height_pt
    else:
        left = proj_left
        margin = (0.0 if grids["beside"] else grids["proj"].height_pt + SPACED_PT) - proj.height_pt
    return HeadView(
        stacked=False, rules_left_pt=left, rules_margin_pt=round(margin, 2), proj=proj, att=att, out=out, **common
    )


def head_matrices(
    problem: Problem,
    solution: Solution,
    h: int,
    key: bool,
    lang: str = "en",
    blank: bool = False,
    marks: Optional[dict] = None,
) -> dict:
    """Every matrix of one head; on a graded sheet (`marks`, by answers@1 step) what the student
    wrote fills the boxes, with its verdicts."""
    views = stepped(_head_matrices(problem, solution, h, key, lang, blank), HEAD_STEPS, h + 1)
    return views if marks is None else marked_views(views, HEAD_STEPS, marks, problem.convention == "row")


def _head_matrices(problem: Problem, solution: Solution, h: int, key: bool, lang: str, blank: bool = False) -> dict:
    """Every matrix of one head, sized for the problem's convention; `blank`: the given ones empty too."""
    _ = translations(lang).gettext
    given = not blank  # a blank template: X and the weights are boxes to fill like the rest
    head, sol = problem.heads[h], solution.heads[h]
    row = problem.convention == "row"
    n = problem.n_tokens
    tokens = [f"x{j + 1}" for j in range(n)]
    queries, keys = [f"q{j + 1}" for j in range(n)], [f"k{i + 1}" for i in range(n)]
    masked = _masked(problem, n, row)
    sums = [[s] for s in sol.sums] if row else [list(sol.sums)]
    # Every width leaves a space each side of its widest entry: "−1 0" never reads as "−10".
    # Column convention: tokens are columns (X, Q, K, V share them), and the attention block
    # shares the query columns; row convention: tokens are rows, Kᵀ and V sit on top.
    # The key's unreduced fractions count on the worksheet too: the same boxes on both.
    forms_a, forms_z = unreduced_forms(sol, row)
    if row:
        att = max(cell_width(m, 4) for m in (sol.scores, sol.scaled, sol.powers))
        frac = max(cell_width(m, 6, True, small) for m, small in ((sol.A, forms_a), (sol.Z, forms_z)))
        weights = max(cell_width(m, 4) for m in (head.W_Q, head.W_K, head.W_V, sol.Q, sol.K, sol.V))
        widths = {
            "X": cell_width(problem.X, 3),
            "W": weights,
            "QKV": weights,
            "Qc": weights,
            "KT": att,
            "att": att,
            "sums": max(att, cell_width(sums, 4)),
            "A": frac,
            "Vc": frac,
        }
    else:
        tok = max(cell_width(m, 4) for m in (problem.X, sol.Q, sol.K, sol.V))
        att = max(
            [cell_width(m, 6, True) for m in (sol.scores, sol.scaled, sol.powers, sums)]
            + [cell_width(m, 6, True, small) for m, small in ((sol.A, forms_a), (sol.Z, forms_z))]
        )
        widths = {
            "X": tok,
            "W": max(cell_width(m, 3) for m in (head.W_Q, head.W_K, head.W_V)),
            "QKV": tok,
            "Qc": att,
            "KT": cell_width(sol.K, 4),
            "att": att,
            "sums": att,
            "A": att,
            "Vc": tok,
        }
    headings = {  # (column headings, row headings), by convention
        "X": ({"tokens": tokens}, {}),
        "Q_copy": ({"tokens": queries}, {"row_labels": queries}),
        "K_T": ({"row_labels": keys}, {"tokens": keys}),
    }
    spec = [  # name (its step's, or a given's), values, width, options: label, caption and tone are its face's
        ("X", problem.X, "X", {"given": given}),
        ("W_Q", head.W_Q, "W", {"given": given}),
        ("W_K", head.W_K, "W", {"given": given}),
        ("W_V", head.W_V, "W", {"given": given}),
        ("Q", sol.Q, "QKV", {}),
        ("K", sol.K, "QKV", {}),
        ("V", sol.V, "QKV", {}),
        ("Q_copy", sol.Q, "Qc", {}),
        ("K_T", transpose(sol.K), "KT", {}),
        ("scores", sol.scores, "att", {"masked": masked}),
        ("scaled", sol.scaled, "att", {"masked": masked}),
        ("powers", sol.powers, "att", {"masked": masked}),
        ("sums", sums, "sums", {}),
        ("A", sol.A, "A", {"masked": masked, "unreduced": forms_a}),
        # Column convention: V's rows meet Z's two-line rows, so its rows are two lines tall.
        ("V_copy", sol.V, "Vc", {} if row else {"tall": True}),
        ("Z", sol.Z, "A", {"unreduced": forms_z}),
    ]
    return {
        name: face_matrix(
            FACES[name], row, _, values, key=key, cell_w=widths[width], **headings.get(name, ({}, {}))[row], **options
        )
        for name, values, width, options in spec
    }


def attention_fits(problem: Problem, solution: Solution, settings: Settings) -> None:
    """Raise LayoutError now if a sheet of `problem` cannot be printed legibly (a batch checks
    every sheet before it renders any)."""
    # Sizes come from the values whatever is shown: measured as empty boxes, no text is formatted.
    for h in range(len(problem.heads)):
        _head_grids(problem, solution, h, False, settings.lang, True, None, settings.paper)
    final_grid(problem, solution, False, settings.lang, blank=True)


def attention_view(
    problem: Problem,
    solution: Solution,
    student: Student,
    settings: Settings,
    key: bool,
    graded: Optional[GradedSheet] = None,
) -> SheetView:
    """Everything the template needs for one worksheet (key=False), answer key (key=True) or
    graded sheet (`graded`: the student's values and verdicts in the worksheet's boxes)."""
    lang = settings.lang
    marks = graded.marks if graded else {}
    final = final_grid(problem, solution, key, lang, settings.blank, marks.get(None) if graded else None)
    score = score_panel(graded, CONTENT_WIDTH_PT, lang) if graded else None
    header = score.height_pt + SCORE_GAP_PT if score else 0.0
    row, framed = problem.convention == "row", len(problem.heads) > 1
    worked = worked_example(problem, solution, lang) if key and settings.worked else None
    # A row-convention head leaves room for the example after its output (82 mm wide there).
    worked_pt = worked_height(worked_panel(worked, RULES_MAX_PT)) if worked and row else 0.0
    heads = tuple(
        head_view(
            problem,
            solution,
            h,
            key,
            settings,
            marks.get(h + 1) if graded else None,
            header,
            worked_pt if h == 0 else 0.0,
        )
        for h in range(len(problem.heads))
    )
    return SheetView(
        problem=problem,
        heads=heads,
        final=final and grid_panel(final.first),
        final_wide=bool(final and final.wide),
        final_more=final and final.rest and grid_panel(final.rest),
        final_more_wide=bool(final and final.rest_wide),
        key=key,
        student=student,
        rules=tuple(rules_lines(problem, key, lang)),
        rules_width_pt=rules_width(heads[0], row, settings.paper, framed),
        worked=worked and worked_panel(worked, worked_width(heads[0], row, settings.paper, framed)),
        graded=graded,
        score=score,
        default_title=translations(lang).gettext("Self-attention by hand"),
    )
