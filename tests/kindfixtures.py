"""Kinds that break the protocol, for tests/core/test_kind_protocol.py (each registered through a made-up entry point)."""

from __future__ import annotations

from types import SimpleNamespace

from generator.core.registry import Kind
from generator.kinds.rnn.kind import KIND as RNN

rnn_part = RNN.load


def _steps_without_solve(which: str):
    found = rnn_part(which)
    if which != "steps":
        return found
    return SimpleNamespace(**{k: v for k, v in vars(found).items() if k != "solve"})


LACKS_SOLVE = Kind("nosolve", code=90, load=_steps_without_solve)
"""A kind whose steps lack `solve`."""
CLASHES = Kind("clash", code=3, load=rnn_part)
"""A kind that claims the recurrent layer's code number."""
NOT_A_KIND = object()
"""Not a Kind at all."""


def _sheet_without_view(which: str):
    found = rnn_part(which)
    if which != "sheet":
        return found
    return SimpleNamespace(**{k: v for k, v in vars(found).items() if k != "view"})


LATE_LACK = Kind("noview", code=91, load=_sheet_without_view)
"""A kind whose sheet lacks `view`: refused when its sheet is first asked for."""
WELL = Kind("rnncopy", code=92, load=rnn_part, order=2000)
"""A kind that keeps the protocol (the recurrent layer under another name)."""
