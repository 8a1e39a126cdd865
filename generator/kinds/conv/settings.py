"""A convolution layer's settings: its image's size, its kernels and whether its maps are pooled (it has no tokens, features or convention)."""

from __future__ import annotations

from generator.draw.settings import N_, Setting

TITLE = N_("A convolution layer")
"""The kind's name, for a teacher."""
TAKES = ("preset", "height", "width", "kernels", "kernel_size", "pool")
"""Every setting its draw takes."""
DEFAULT_SHAPE = {"height": 5, "width": 5, "kernels": 1, "kernel_size": 2}
"""Its shape where none is given: a 5 × 5 image and one 2 × 2 kernel, its 4 × 4 map pooled to 2 × 2."""

DECLARED = (
    Setting(
        "height",
        "--height",
        N_("Rows of a convolution's image."),
        "number",
        5,
        lo=4,
        hi=6,
        words=N_("Image rows"),
        group="shape",
    ),
    Setting(
        "width",
        "--width",
        N_("Columns of a convolution's image."),
        "number",
        5,
        lo=4,
        hi=6,
        words=N_("Image columns"),
        group="shape",
    ),
    Setting(
        "kernels",
        "--kernels",
        N_("Kernels of a convolution, each with its own map."),
        "number",
        1,
        lo=1,
        hi=2,
        words=N_("Kernels"),
        group="shape",
    ),
    Setting(
        "kernel_size",
        "--kernel-size",
        N_("Rows and columns of a convolution's kernels."),
        "number",
        2,
        lo=2,
        hi=3,
        words=N_("Kernel size"),
        group="shape",
    ),
    Setting(
        "pool",
        "--pool",
        N_("Max-pool each map of a convolution by 2 × 2 blocks (its sides must be even)."),
        "switch",
        True,
        off="--no-pool",
        words=N_("2 × 2 max-pool"),
        group="exercise",
    ),
)
"""The settings a convolution layer brings."""
