"""`attnsheet draw`: hand-friendly problems drawn from a seed, as a JSON list of problem@1 objects."""

from __future__ import annotations

from pathlib import Path

import click

from generator.cli.common import OutPath, emit, explicit, say
from generator.cli.drawopts import DRAW_OPTION_NAMES, draw_options, options_from
from generator.app.drawing import MAX_COUNT, MAX_SEED, drawn, fresh_seed, rebuilt, spread_text
from generator.app.files import write_atomic
from generator.app.solving import dumps, problem_to_json


@click.command("draw")
@click.option(
    "--seed",
    type=click.IntRange(0, MAX_SEED),
    default=None,
    help="Seed of the batch; without it a fresh one is chosen and printed.",
)
@click.option("--count", type=click.IntRange(1, MAX_COUNT), default=1, show_default=True, help="Problems to draw.")
@draw_options
@click.option("--code", default=None, help="Rebuild the one problem a sheet code was printed for.")
@click.option(
    "--out",
    type=OutPath(dir_okay=False, allow_dash=True, path_type=Path),
    default=None,
    help="Write the JSON to this file instead of stdout (- is stdout).",
)
@click.option("--force", is_flag=True, help="Overwrite --out if it exists.")
@click.option("--stats", is_flag=True, help="Print the spread of the difficulty metrics on stderr.")
@click.pass_context
def draw_command(ctx: click.Context, seed, count, code, out, force, stats, **params) -> None:
    """Draw hand-friendly problems at random, as a JSON list of problem@1 objects.

    Each problem carries its sheet code (which rebuilds it exactly) and its difficulty
    metrics. `attnsheet solve` reads the list as it is.

    \b
    Example:
      attnsheet draw --seed 7 --count 30 --preset easy --out problems.json --stats
      attnsheet draw --code 72A2-Z
    """
    if code is not None:
        clash = explicit(ctx, ("seed", "count") + DRAW_OPTION_NAMES)
        if clash:
            name = clash[0].replace("_", "-")
            raise click.UsageError(f"--code rebuilds a problem from the code alone; drop --{name}")
        problems = rebuilt(code)
    else:
        options = options_from(params, given=tuple(explicit(ctx, DRAW_OPTION_NAMES)))
        fresh = seed is None
        seed = fresh_seed() if fresh else seed
        problems = drawn(options, seed, count)
        if fresh:
            say(f"seed {seed} (rebuild this batch with --seed {seed})")
    text = dumps([problem_to_json(p) for p in problems]) + "\n"
    if out is None or str(out) == "-":
        emit(text)
    else:
        write_atomic(out, text.encode(), force=force)
        say(f"wrote {len(problems)} problem{'s' if len(problems) > 1 else ''} to {out}")
    if stats:
        click.echo(spread_text(problems), err=True)
