"""Options of a kind drawn by its shape, and what the draw of every such kind shares: their checks, sheet codes and manifest.

A kind whose options are a preset, its shape (whole numbers within limits), a convention and a few
flags subclasses `Shaped` and declares its limits, its presets and its code's fields; the
protocol's `options`, `code_head`, `read_code` and `manifest` are then written once, here. A
version-6 code's head: the version (3 bits), the kind's number (its Kind.code, Elias gamma), the
preset (2 bits), each shape field less its offset (Elias gamma, in `CODE`'s order), the row
convention and each flag (1 bit each), each choice's word by its place (Elias gamma).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Callable, ClassVar, Collection

from generator.draw.options import PRESET_NAMES, DrawError
from generator.draw.streams import keyed, shape_of


@dataclass(frozen=True)
class Shaped:
    """Options that shape a kind's draw: a preset, its shape, a convention, its flags; a sheet code carries all of it."""

    kind: ClassVar[str] = ""
    """The kind these options draw."""
    PRESETS: ClassVar[dict] = {}
    """Its presets by name (PRESET_NAMES): value ranges and bounds that keep the arithmetic hand-sized."""
    SHAPE_LIMITS: ClassVar[dict[str, tuple[int, int]]] = {}
    """Each shape field's least and largest value."""
    CODE: ClassVar[tuple[tuple[str, int], ...]] = ()
    """The shape fields in the code's order, each with what is taken off before it is written."""
    FLAGS: ClassVar[tuple[str, ...]] = ()
    """Its yes-or-no fields, in the code's order after the convention."""
    CHOICES: ClassVar[tuple[tuple[str, tuple[str, ...]], ...]] = ()
    """Its fields that are one of a few words, each with its words, in the code's order after the flags."""
    preset: str = "medium"
    """easy, medium or hard."""

    def __init_subclass__(
        cls,
        kind: str = "",
        presets: dict | None = None,
        limits: dict | None = None,
        code: tuple = (),
        flags: tuple = (),
        choices: tuple = (),
        **rest: Any,
    ) -> None:
        """A kind's options declared in their class line: `class Options(Shaped, kind="mine", presets=PRESETS,
        limits=SHAPE_LIMITS, code=(("tokens", 2), …), flags=("weighted",))`; what is not given is the parent's."""
        super().__init_subclass__(**rest)
        for name, value in (
            ("kind", kind),
            ("PRESETS", presets),
            ("SHAPE_LIMITS", limits),
            ("CODE", code),
            ("FLAGS", flags),
            ("CHOICES", choices),
        ):
            if value:
                setattr(cls, name, value)

    def __post_init__(self) -> None:
        if self.preset not in self.PRESETS:
            raise DrawError(f"--preset: expected one of {', '.join(self.PRESETS)}, got {self.preset!r}")
        for name, (lo, hi) in self.SHAPE_LIMITS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise DrawError(f"--{name.replace('_', '-')}: {self.kind} sheets take {lo} to {hi}, got {value}")
        if getattr(self, "convention", "column") not in ("column", "row"):
            raise DrawError(f"--convention: expected column or row, got {getattr(self, 'convention')!r}")
        if hasattr(self, "draw_version") and not 1 <= self.draw_version <= len(_numbers(self)):
            raise DrawError(f"draw version: expected 1 to {len(_numbers(self))}, got {self.draw_version}")
        for name, words in self.CHOICES:
            if getattr(self, name) not in words:
                raise DrawError(
                    f"--{name.replace('_', '-')}: expected one of {', '.join(words)}, got {getattr(self, name)!r}"
                )

    def limits(self) -> Any:
        """The preset's values and bounds."""
        return self.PRESETS[self.preset]

    def check_drawable(self) -> None:
        """Refuse, before any draw, a shape no search can draw (every shape within the limits draws, by default)."""


@dataclass(frozen=True)
class Layered(Shaped):
    """Options of a kind worked on tokens (a layer's examples, a sequence's steps) of a few features."""

    tokens: int = 3
    """Tokens n (a recurrent layer's time steps, a network's examples)."""
    d_model: int = 2
    """Features per token."""


def _has_convention(cls: type) -> bool:
    """Whether a kind's options have a convention (an image has no row twin)."""
    return "convention" in {f.name for f in fields(cls)}


def _numbers(o: Shaped) -> tuple[int, ...]:
    """The numbers the kind's codes carry, one per draw (a kind with a later draw has a `draw_version`)."""
    from generator.core.registry import kind

    return kind(o.kind).numbers


def options_for(cls: type, default_shape: dict) -> Callable[..., Any]:
    """The protocol's `options(values, given)` of a kind whose options are `cls`: its shape its own
    where none was given."""

    def options(values: dict, given: Collection[str] = ()) -> Any:
        """The options of the settings by name; its shape its own where none was given."""
        convention = {"convention": values["convention"]} if _has_convention(cls) else {}
        return cls(
            **shape_of(values, given, default_shape),
            preset=values["preset"],
            **convention,
            **{flag: values[flag] for flag in cls.FLAGS},
            **{name: values[name] for name, _ in cls.CHOICES},
        )

    return options


def code_head(o: Shaped, w) -> None:
    """The options packed into a version-6 code's head (see the module's docstring)."""
    from generator.draw.sheetcodes import KINDS_VERSION

    w.uint(KINDS_VERSION, 3)
    numbers = _numbers(o)  # the number of the draw that made it (a kind's later draws carry later ones)
    w.gamma(numbers[getattr(o, "draw_version", len(numbers)) - 1])
    w.uint(PRESET_NAMES.index(o.preset), 2)
    for name, offset in o.CODE:
        w.gamma(getattr(o, name) - offset)
    if _has_convention(type(o)):
        w.flag(getattr(o, "convention") == "row")
    for flag in o.FLAGS:
        w.flag(getattr(o, flag))
    for name, words in o.CHOICES:
        w.gamma(words.index(getattr(o, name)))


def code_reader(cls: type) -> Callable[..., Any]:
    """The protocol's `read_code(version, reader, code)` of a kind whose options are `cls`."""

    def read_code(version: int, r, code: str) -> Any:
        """The options a version-6 code holds (its kind number read)."""
        from generator.draw.codes import CodeError

        preset = r.uint(2)
        if preset >= len(PRESET_NAMES):
            raise CodeError(f"{code[:40]!r} is not a sheet code")
        shape = {name: r.gamma() + offset for name, offset in cls.CODE}
        convention = {"convention": "row" if r.flag() else "column"} if _has_convention(cls) else {}
        flags = {flag: r.flag() for flag in cls.FLAGS}
        chosen = {}
        for name, words in cls.CHOICES:
            picked = r.gamma()
            if picked >= len(words):
                raise CodeError(f"{code[:40]!r} is not a sheet code")
            chosen[name] = words[picked]
        return cls(preset=PRESET_NAMES[preset], **shape, **convention, **flags, **chosen)

    return read_code


def manifest(o: Shaped) -> dict:
    """The options as a manifest records them (the current draw's version left out: a code says
    which draw made an older sheet)."""
    out = {"kind": o.kind, **asdict(o)}
    if out.get("draw_version") == len(_numbers(o)):
        del out["draw_version"]
    return out


def keys_drawn_by(draw_one: Callable[..., Any]) -> Callable[..., list]:
    """The protocol's `draw_keys(options, keys)` of a kind that draws one problem by
    `draw_one(options, seed, index, code)`."""

    def draw_keys(o: Shaped, keys: list[tuple[int, int]]) -> list:
        """The problems for (seed, index) pairs, in order, each with its sheet code."""
        return keyed(o, keys, lambda seed, index, code: draw_one(o, seed, index, code))

    return draw_keys
