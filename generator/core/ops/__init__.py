"""The operations a step's cells are worked by, each one object in one module (see base.py)."""

from generator.core.ops.add import ADD, add
from generator.core.ops.affine import AFFINE, affine, affine_pairs
from generator.core.ops.argmax import ARGMAX, argmax_rows
from generator.core.ops.broadcast import BROADCAST, along
from generator.core.ops.base import Lit, Operation, Values, dot, guarded
from generator.core.ops.copy import COPY, copy
from generator.core.ops.difference import DIFFERENCE, subtracted
from generator.core.ops.divide import DIVIDE
from generator.core.ops.gain import GAIN, gained
from generator.core.ops.gate import GATE, gated
from generator.core.ops.mean import MEAN, means
from generator.core.ops.neighbours import NEIGHBOURS, averaged, degrees
from generator.core.ops.pick import PICK, picked, route_of
from generator.core.ops.pool import POOL, pooled
from generator.core.ops.product import PRODUCT, product
from generator.core.ops.routed import ROUTED, routed, routed_cells
from generator.core.ops.rule import RULE, relu
from generator.core.ops.scale import SCALE, scaled_columns
from generator.core.ops.stack import STACK, stacked
from generator.core.ops.sum import SUM
from generator.core.ops.totals import TOTAL, totals
from generator.core.ops.transpose import TRANSPOSE, transposed
from generator.core.ops.update import UPDATE, stepped_by
from generator.core.ops.window import WINDOW, windowed

OPERATIONS = (
    PRODUCT,
    AFFINE,
    RULE,
    COPY,
    TRANSPOSE,
    SUM,
    DIVIDE,
    ADD,
    STACK,
    ARGMAX,
    PICK,
    ROUTED,
    SCALE,
    WINDOW,
    POOL,
    MEAN,
    BROADCAST,
    GAIN,
    DIFFERENCE,
    TOTAL,
    GATE,
    UPDATE,
    NEIGHBOURS,
)
"""The built-in operations."""

__all__ = [
    "NEIGHBOURS",
    "averaged",
    "degrees",
    "DIFFERENCE",
    "GATE",
    "TOTAL",
    "UPDATE",
    "gated",
    "stepped_by",
    "subtracted",
    "totals",
    "ADD",
    "AFFINE",
    "ARGMAX",
    "BROADCAST",
    "COPY",
    "GAIN",
    "MEAN",
    "along",
    "gained",
    "means",
    "DIVIDE",
    "OPERATIONS",
    "PICK",
    "POOL",
    "PRODUCT",
    "ROUTED",
    "RULE",
    "SCALE",
    "STACK",
    "SUM",
    "TRANSPOSE",
    "WINDOW",
    "pooled",
    "windowed",
    "Lit",
    "Operation",
    "Values",
    "add",
    "affine",
    "affine_pairs",
    "argmax_rows",
    "copy",
    "dot",
    "guarded",
    "picked",
    "product",
    "relu",
    "route_of",
    "routed",
    "routed_cells",
    "scaled_columns",
    "stacked",
    "transposed",
]
