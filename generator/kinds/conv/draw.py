"""A convolution layer's draw: its options and presets, its guarantees (ReLU matters in every map, the pool's maxima move, hand-sized), its seeded draw and code.

Problem `index` of a batch drawn with `seed` reads its own streams: the image from spawn key
(index,), the kernels from (index, 1), each chosen from CANDIDATES at a time on the true image,
so every guarantee is checked on the numbers the sheet will hold.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from generator.core.degenerate import constant
from generator.draw import shaped
from generator.draw.options import PRESET_NAMES, DrawError, Table, Tables
from generator.draw.shaped import Shaped, code_reader, keys_drawn_by, options_for
from generator.draw.streams import as_matrix, first_hit, sample, stream
from generator.kinds.conv.settings import DEFAULT_SHAPE
from generator.kinds.conv.steps import ConvProblem, Kernel

CANDIDATES, ROUNDS, RETRIES = 64, 64, 16
"""Kernels drawn at once; rounds of them per kernel; fresh images before the draw gives up."""

GUARANTEES = {
    "image": "the image not one value throughout",
    "kernels": "no kernel of one value throughout, every map with a negative and a positive entry (ReLU zeroes "
    "one, leaves one), |Z| within the preset's bound, and a pooled map's maxima not all in one corner "
    "of their blocks",
}

SHAPE_LIMITS = {"height": (4, 6), "width": (4, 6), "kernels": (1, 2), "kernel_size": (2, 3)}
"""Shapes a convolution is worked by hand in."""


@dataclass(frozen=True)
class ConvPreset(Tables):
    """Value ranges and a bound that keep a convolution's arithmetic hand-sized (x: the image's
    table, w: the kernels', b: their biases')."""

    z: int
    """Largest |entry| of any map."""


PRESETS = {
    "easy": ConvPreset(
        x=Table((0, 1, 2), (3, 3, 2)), w=Table((-1, 0, 1), (2, 1, 2)), b=Table((-1, 0, 1), (1, 2, 1)), z=6
    ),
    "medium": ConvPreset(
        x=Table((0, 1, 2, 3), (2, 3, 2, 1)), w=Table((-1, 0, 1), (2, 1, 2)), b=Table((-2, -1, 0, 1), (1, 2, 2, 2)), z=10
    ),
    "hard": ConvPreset(
        x=Table((0, 1, 2, 3), (2, 2, 2, 2)),
        w=Table((-1, 0, 1), (2, 1, 2)),
        b=Table((-2, -1, 0, 1, 2), (1, 2, 2, 2, 1)),
        z=16,
    ),
}
assert tuple(PRESETS) == PRESET_NAMES


@dataclass(frozen=True)
class Options(
    Shaped,
    kind="conv",
    presets=PRESETS,
    limits=SHAPE_LIMITS,
    code=(("height", 4), ("width", 4), ("kernels", 1), ("kernel_size", 2)),
    flags=("pool",),
):
    """Everything that shapes a convolution's draw; a sheet code carries all of it."""

    height: int = 5
    """The image's rows."""
    width: int = 5
    """The image's columns."""
    kernels: int = 1
    """Kernels, each with its own map."""
    kernel_size: int = 2
    """Each kernel's rows and columns."""
    pool: bool = True
    """Each map max-pooled by 2 × 2 blocks."""
    draw_version: int = 2
    """Which draw made it: 1 printed its boxes at their least size; 2 grows them where the page has
    room (Kind.later: its codes carry 18; the numbers drawn are the same)."""

    def check_drawable(self) -> None:
        """Refuse, before any draw, a pool of a map whose sides are not even."""
        rows, cols = self.height - self.kernel_size + 1, self.width - self.kernel_size + 1
        if self.pool and (rows % 2 or cols % 2):
            raise DrawError(
                f"--pool: a {self.height}×{self.width} image under a {self.kernel_size}×{self.kernel_size}"
                f" kernel makes a {rows}×{cols} map, and 2 × 2 blocks need even sides; with --kernel-size "
                f"{self.kernel_size} take an {'even' if self.kernel_size % 2 else 'odd'} --height and "
                "--width, or --no-pool"
            )


OPTIONS = Options
"""The kind's options: everything that shapes its draw."""
options, read_code = options_for(Options, DEFAULT_SHAPE), code_reader(Options)
code_head, manifest = shaped.code_head, shaped.manifest


def draw_kernel(bits: np.random.PCG64, o: Options, lim: ConvPreset, X: np.ndarray) -> tuple | None:
    """A kernel and its bias whose map of X meets every guarantee; None if no round gives one."""
    k = o.kernel_size
    windows = sliding_window_view(X, (k, k))
    for _ in range(ROUNDS):
        K, b = sample(bits, lim.w, (CANDIDATES, k, k)), sample(bits, lim.b, (CANDIDATES,))
        Z = np.einsum("ijuv,cuv->cij", windows, K) + b[:, None, None]
        ok = (np.abs(Z) <= lim.z).all(axis=(1, 2)) & (Z < 0).any(axis=(1, 2)) & (Z > 0).any(axis=(1, 2))
        ok &= (K != K[:, :1, :1]).any(axis=(1, 2))  # no kernel of one value
        if o.pool:
            H = np.maximum(Z, 0)
            r, c = H.shape[1] // 2, H.shape[2] // 2
            corners = H.reshape(CANDIDATES, r, 2, c, 2).transpose(0, 1, 3, 2, 4).reshape(CANDIDATES, r * c, 4)
            where = corners.argmax(axis=2)
            ok &= (where != where[:, :1]).any(axis=1) if r * c > 1 else True
        i = first_hit(ok)
        if i is not None:
            return K[i], int(b[i])
    return None


def draw_one(o: Options, seed: int, index: int, code: str) -> ConvProblem:
    """Problem `index` of the batch drawn with `seed`, with its code."""
    lim, bits, kernel_bits = o.limits(), stream(seed, index), stream(seed, index, 1)
    for _ in range(RETRIES):
        X = next((x for x in sample(bits, lim.x, (CANDIDATES, o.height, o.width)) if not constant(x.tolist())), None)
        if X is None:
            continue
        kernels = [draw_kernel(kernel_bits, o, lim, X) for _ in range(o.kernels)]
        if all(k is not None for k in kernels):
            return ConvProblem(
                X=as_matrix(X),
                kernels=tuple(Kernel(as_matrix(K), b) for K, b in kernels),
                pool=2 if o.pool else 0,
                code=code,
            )
    raise DrawError(
        f"cannot draw a {o.kind} sheet of this shape on {o.preset}: {GUARANTEES['kernels']}; "
        "try another preset or a larger image"
    )


draw_keys = keys_drawn_by(draw_one)


def blank(o: Options) -> ConvProblem:
    """A blank convolution of the shape of `o` (a blank template prints none of its numbers)."""
    zeros = lambda r, c: tuple((0,) * c for _ in range(r))  # noqa: E731
    kernel = Kernel(zeros(o.kernel_size, o.kernel_size), 0)
    return ConvProblem(X=zeros(o.height, o.width), kernels=(kernel,) * o.kernels, pool=2 if o.pool else 0)
