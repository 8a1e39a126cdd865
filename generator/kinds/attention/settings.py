"""Attention's settings: its shape beyond the tokens and features, its mask and rules, the overrides of its presets."""

from __future__ import annotations

from generator.draw.settings import N_, Setting

TITLE = N_("Self-attention")
"""The kind's name, for a teacher."""
TAKES = (
    "preset",
    "tokens",
    "d_model",
    "convention",
    "d_k",
    "d_v",
    "heads",
    "output_projection",
    "causal",
    "rules",
    "x_range",
    "w_range",
    "max_score",
    "max_sum",
    "allow_negative_exponents",
)
"""Every setting its draw takes (its options' fields a teacher sets)."""
DEFAULT_SHAPE = {"tokens": 4, "d_model": 6, "d_k": 3}
"""Its shape where none is given: the classic sheet's."""

MAX_SCORE_LIMIT = 12
"""--max-score at most 3^12: already far past hand size."""
MAX_SUM_LIMIT = 100_000
"""--max-sum at most this."""

CHOICE_WORDS = {"rules": {"hand": N_("by hand: floor(x/2) and 3^x"), "exact": N_("exact: /√d_k and e^x")}}
"""The rules' choices in a teacher's words."""

DECLARED = (
    Setting(
        "d_k", "--d-k", N_("Query/key size."), "number", 3, lo=1, hi=8, words=N_("Query and key size"), group="shape"
    ),
    Setting("d_v", "--d-v", N_("Value size."), "number", 3, lo=1, hi=8, words=N_("Value size"), group="shape"),
    Setting("heads", "--heads", N_("Attention heads."), "number", 1, lo=1, hi=4, words=N_("Heads"), group="shape"),
    Setting(
        "output_projection",
        "--output-projection",
        N_("Add an output projection W_O."),
        "flag",
        False,
        words=N_("Output projection W_O"),
        group="shape",
    ),
    Setting(
        "causal",
        "--causal",
        N_("Causal mask: query j sees keys 1..j only."),
        "flag",
        False,
        words=N_("Causal mask"),
        group="rules",
    ),
    Setting(
        "rules",
        "--rules",
        N_("hand: floor(x/2) and 3^x; exact: /√d_k and e^x."),
        "choice",
        "hand",
        choices=("hand", "exact"),
        words=N_("By-hand or exact rules"),
        group="rules",
    ),
    Setting(
        "x_range",
        "--x-range",
        N_("Override: X entries in LO..HI, e.g. 0..3."),
        "range",
        shown=False,
        words=N_("Inputs from … to …"),
    ),
    Setting(
        "w_range",
        "--w-range",
        N_("Override: weights in LO..HI, e.g. -1..2."),
        "range",
        shown=False,
        words=N_("Weights from … to …"),
    ),
    Setting(
        "max_score",
        "--max-score",
        N_("Override: largest scaled score (3^N)."),
        "number",
        lo=-1,
        hi=MAX_SCORE_LIMIT,
        shown=False,
        words=N_("Largest scaled score"),
    ),
    Setting(
        "max_sum",
        "--max-sum",
        N_("Override: largest column sum of powers."),
        "number",
        lo=1,
        hi=MAX_SUM_LIMIT,
        shown=False,
        words=N_("Largest column sum"),
    ),
    Setting(
        "allow_negative_exponents",
        "--allow-negative-exponents",
        N_("Allow scaled scores of -1, so 3^-1 = 1/3 appears."),
        "flag",
        False,
        words=N_("Allow 3^−1 = 1/3"),
    ),
)
"""The settings attention brings (the block's computed attention takes some of them too)."""
