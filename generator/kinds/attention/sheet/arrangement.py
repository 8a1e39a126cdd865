"""Where an attention sheet's matrices go: rows of grids, each product where its factors' rows and columns cross."""

from __future__ import annotations


def arrangement(convention: str, m: dict, stacked: bool = False) -> dict[str, list[list]]:
    """Where a head's matrices go, by view name: rows of its grids, so that each product sits
    where its factors' rows and columns cross (the by-hand layout, or its transpose); `stacked`:
    a row-convention head too big for one page, its elementwise steps one below another."""
    if convention == "row":
        steps = (
            [[m["Q_copy"], m["scores"]], [None, m["scaled"]], [None, m["powers"], m["sums"]]]
            if stacked
            else [[m["Q_copy"], m["scores"], m["scaled"], m["powers"], m["sums"]]]
        )
        return {
            "proj": [[None, m["W_Q"], m["W_K"], m["W_V"]], [m["X"], m["Q"], m["K"], m["V"]]],
            "att": [[None, m["K_T"]], *steps],
            "out": [[None, m["V_copy"]], [m["A"], m["Z"]]],
        }
    return {
        "proj": [[None, m["X"]], [m["W_Q"], m["Q"]], [m["W_K"], m["K"]], [m["W_V"], m["V"]]],
        "att": [
            [None, m["Q_copy"]],
            [m["K_T"], m["scores"]],
            [None, m["scaled"]],
            [None, m["powers"]],
            [None, m["sums"]],
            [None, m["A"]],
            [m["V_copy"], m["Z"]],
        ],
    }


def final_arrangement(convention: str, v: dict) -> list[list]:
    """The rows of the grid after the heads: the concatenation, and W_O beside the output."""
    if convention == "row":
        return [[None, v["W_O"]], [v["Z"], v["output"]]] if "W_O" in v else [[v["Z"]]]
    return [[None, v["Z"]], [v["W_O"], v["output"]]] if "W_O" in v else [[None, v["Z"]]]


KEPT_BANDS = {
    # Column convention: X heads the columns of Q, K and V; Q's copy those of the scores; A
    # sits above V's copy and Z. Row convention: the weights, Kᵀ and V's copy head the columns
    # of the products below them. Elementwise steps (S', E, Σ) may go on over a page.
    "column": {"proj": frozenset({0, 1, 2}), "att": frozenset({0, 5})},
    "row": {"proj": frozenset({0}), "att": frozenset({0}), "out": frozenset({0})},
}
"""Bands of each grid that stay on the page of the band after them (see `arrangement`)."""
HEADING_BANDS = {"column": frozenset({"proj"}), "row": frozenset()}
"""Grids whose first band heads the columns of all the others (X, of Q, K and V): printed again atop
a page where they go on over two (HeadView.again)."""
