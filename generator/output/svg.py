"""Panels' shapes, QR codes and text styles as inline SVG and CSS, for HTML output."""

from __future__ import annotations

from markupsafe import Markup

from generator.sheet.panel import PanelView, Point, Shapes
from generator.sheet.qr import qr_shapes
from generator.sheet.style import EDGE_PT, QR_PT, Ink


def _svg_rect(r: tuple[float, float, float, float]) -> str:
    x, y, w, h = r
    return f"M{_n(x)} {_n(y)}h{_n(w)}v{_n(h)}h{_n(-w)}z"


def _svg_line(points: tuple[Point, ...]) -> str:
    """A polyline, with the short H and V forms where it runs straight across or down."""
    (x, y), rest = points[0], points[1:]
    d = f"M{_n(x)} {_n(y)}"
    for nx, ny in rest:
        d += f"H{_n(nx)}" if ny == y else f"V{_n(ny)}" if nx == x else f"L{_n(nx)} {_n(ny)}"
        x, y = nx, ny
    return d


def _n(x: float) -> str:
    """A coordinate, short: SVG text is parsed again for every page."""
    return f"{round(x, 2):g}"


def qr_svg(code: str, side_pt: float = QR_PT, quiet: int = 0) -> Markup:
    """A sheet code's QR code (or any link's) as one inline SVG path, `side_pt` wide with `quiet`
    light modules around it (HTML output and the handout; PDF pages paint it)."""
    shapes = qr_shapes(code)
    d = "".join(_svg_rect(r) for _, rects in shapes.fills for r in rects)
    box = (
        f"0 0 {_n(shapes.width)} {_n(shapes.height)}"
        if not quiet
        else f"{-quiet} {-quiet} {_n(shapes.width + 2 * quiet)} {_n(shapes.height + 2 * quiet)}"
    )
    return Markup(
        f'<svg class="qr" xmlns="http://www.w3.org/2000/svg" width="{_n(side_pt)}pt" height="{_n(side_pt)}pt"'
        f' viewBox="{box}" shape-rendering="crispEdges">'
        f'<path d="{d}"/></svg>'
    )


def shapes_svg(shapes: Shapes, scale: float) -> Markup:
    """A panel's shapes as one inline SVG, drawn at `scale` (numbers and colours only)."""
    width, height = shapes.width, shapes.height
    paths = [f'<path fill="{fill}" d="{"".join(_svg_rect(r) for r in rects)}"/>' for fill, rects in shapes.fills]
    paths += [
        f'<path fill="none" stroke="{colour}" stroke-width="{_n(w)}" d="{"".join(map(_svg_line, lines))}"/>'
        for colour, w, lines in shapes.strokes
    ]
    return Markup(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width * scale)}pt" height="{_n(height * scale)}pt"'
        f' viewBox="{_n(-EDGE_PT)} 0 {_n(width)} {_n(height)}">{"".join(paths)}</svg>'
    )


def panel_svg(panel: PanelView) -> Markup:
    """A panel's drawing, for HTML."""
    return shapes_svg(panel.shapes, panel.scale)


def ink_css(ink: Ink) -> Markup:
    """A text style as CSS declarations, for HTML."""
    spacing = f"; letter-spacing: {_n(ink.spacing)}pt" if ink.spacing else ""
    return Markup(f"font: {ink.weight} {_n(ink.size)}pt 'Sheet Mono'; color: {ink.colour}{spacing}")
