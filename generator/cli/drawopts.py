"""The draw's options on the command line: shape, preset and rules, checked by Click (a misuse exits 2)."""

from __future__ import annotations

from typing import Callable

import click

from generator.draw.choose import ATTENTION_OPTION_NAMES, KIND_OPTION_NAMES, options_for
from generator.draw.kindopts import KIND_NAMES
from generator.draw.options import MAX_SCORE_LIMIT, MAX_SUM_LIMIT, PRESET_NAMES, VALUE_LIMIT, DrawError


class RangeType(click.ParamType):
    """LO..HI, two integers within -VALUE_LIMIT..VALUE_LIMIT."""

    name = "LO..HI"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        lo, sep, hi = str(value).partition("..")
        try:
            if not sep:
                raise ValueError
            pair = (int(lo), int(hi))
        except ValueError:
            self.fail(f"expected LO..HI such as 0..2, got {value[:40]!r}", param, ctx)
        if pair[0] > pair[1]:
            self.fail(f"LO must not exceed HI, got {value!r}", param, ctx)
        if not -VALUE_LIMIT <= pair[0] <= pair[1] <= VALUE_LIMIT:
            self.fail(f"expected values within -{VALUE_LIMIT}..{VALUE_LIMIT}, got {value!r}", param, ctx)
        return pair


def draw_options(command: Callable) -> Callable:
    """The shape, preset and rule options shared by `draw` and `generate`."""
    options = [
        click.option("--kind", type=click.Choice(KIND_NAMES), default="attention", show_default=True,
                     help="The exercise: self-attention, the feed-forward layer (ffn), or a whole transformer block."),
        click.option("--preset", type=click.Choice(PRESET_NAMES), default="medium", show_default=True,
                     help="Value ranges and guarantees: how hard the arithmetic is."),
        click.option("--tokens", type=click.IntRange(1, 12), default=4, show_default=True, help="Tokens n."),
        click.option("--d-model", type=click.IntRange(1, 16), default=6, show_default=True,
                     help="Features per token."),
        click.option("--d-k", type=click.IntRange(1, 8), default=3, show_default=True, help="Query/key size."),
        click.option("--d-v", type=click.IntRange(1, 8), default=3, show_default=True, help="Value size."),
        click.option("--heads", type=click.IntRange(1, 4), default=1, show_default=True, help="Attention heads."),
        click.option("--output-projection", is_flag=True, help="Add an output projection W_O."),
        click.option("--causal", is_flag=True, help="Causal mask: query j sees keys 1..j only."),
        click.option("--convention", type=click.Choice(["column", "row"]), default="column", show_default=True,
                     help="column: tokens are columns (by hand); row: tokens are rows (PyTorch)."),
        click.option("--rules", type=click.Choice(["hand", "exact"]), default="hand", show_default=True,
                     help="hand: floor(x/2) and 3^x; exact: /√d_k and e^x."),
        click.option("--x-range", type=RangeType(), default=None, help="Override: X entries in LO..HI, e.g. 0..3."),
        click.option("--w-range", type=RangeType(), default=None, help="Override: weights in LO..HI, e.g. -1..2."),
        click.option("--max-score", type=click.IntRange(-1, MAX_SCORE_LIMIT), default=None,
                     help="Override: largest scaled score (3^N)."),
        click.option("--max-sum", type=click.IntRange(1, MAX_SUM_LIMIT), default=None,
                     help="Override: largest column sum of powers."),
        click.option("--allow-negative-exponents", is_flag=True,
                     help="Allow scaled scores of -1, so 3^-1 = 1/3 appears."),
        click.option("--d-ff", type=click.IntRange(1, 6), default=None, show_default="4 for ffn, 3 for transformer",
                     help="Hidden units of the feed-forward layer (--kind ffn or transformer)."),
        click.option("--residual/--no-residual", default=True, show_default=True,
                     help="--kind ffn: add the input back, out = X + Y (a transformer block always does)."),
        click.option("--attention", type=click.Choice(["given", "computed"]), default="given", show_default=True,
                     help="--kind transformer: A given on the sheet (Z = X·A), or computed from a head."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


DRAW_OPTION_NAMES = ("kind",) + ATTENTION_OPTION_NAMES + KIND_OPTION_NAMES


def options_from(params: dict, drawn: bool = True, given: tuple[str, ...] = ()):
    """The draw's options from the CLI's parsed parameters (`given`: the ones the user typed;
    see `draw.choose.options_for`). A combination they refuse, or a shape they cannot draw when
    they are `drawn` (not a blank template's), is a usage error."""
    try:
        options = options_for(params, given)
        if drawn:
            options.check_drawable()
        return options
    except DrawError as error:
        raise click.UsageError(str(error)) from None
