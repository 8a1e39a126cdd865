"""The sheet's prose and boxes in numbers (header, title, name lines, rules box, frames): sheet.css and the layout read them."""

from __future__ import annotations

from generator.sheet.style import Ink

MM = 72 / 25.4
"""Points in a millimetre."""

# templates/sheet.css is rendered from these (generator.output.html.stylesheet_text), and
# sheet/layout.py places the same text with them: a size or a colour has one source.
KIND = Ink(7.5, 600, "#6b6b6b", 0.8)
"""WORKSHEET or ANSWER KEY, above the title."""
KIND_KEY = Ink(7.5, 600, "#0b4fa8", 0.8)
"""The same on a key."""
TITLE = Ink(15.0, 600, "#1b1b1b")
"""The sheet's title."""
TITLE_GAP_PT = (1.0, 5.0)
"""Above and below the title's line."""
TITLE_MAX_MM = 120
"""The widest a title may be on its one line; a longer one wraps (and goes to WeasyPrint)."""
TITLE_MAX_PT = TITLE_MAX_MM * MM
FIELD = Ink(9.0, 400, "#555555")
"""The words Name, Date, Group (and the prose's size)."""
FIELD_VALUE = Ink(9.0, 400, "#1b1b1b")
"""What is written on their lines (a roster's name and group)."""
LINE_PAD_PT = 2.0
"""A name line's padding, left and right."""
LINE_WIDTHS_MM = (62, 24)
"""The name's line, and the date's and group's."""
LINE_WIDTHS_PT = tuple(w * MM for w in LINE_WIDTHS_MM)
UNDERLINE = (0.6, "#333333")
"""The name lines' width and colour."""
HEADER_MIN_PT, HEADER_PAD_PT, HEADER_GAP_PT = 43.0, 5.0, 8.0
"""The header's least height, its padding above the rule, and the gap below the rule."""
HEADER_RULE = (1.2, "#333333")
"""The rule under the header: width and colour."""
RULES_TITLE = Ink(8.0, 600, "#1b1b1b")
"""The rules box's title (and the worked example's)."""
RULES_TEXT = Ink(8.0, 400, "#1b1b1b")
"""Its text."""
RULES_TITLE_GAP_PT = 2.0
"""Below its title."""
RULES_BOX = ("#fafafa", "#bbbbbb", 4.0)
"""The rules box's background, border colour and corner radius (the worked example's too)."""
SPACED_PT = 10.0
"""Above a grid that follows another, and above the rules box and the worked example."""
FRAME = (0.8, "#999999", 4.0)
"""A head's frame (several heads, or the concatenation): border width, colour, corner radius."""
FRAME_PAD_PT = (6.0, 8.0, 8.0, 8.0)
"""Its padding: top, right, bottom, left."""
FRAME_GAP_PT = 8.0
"""Below a frame."""
FRAME_INSET_PT = FRAME_PAD_PT[1] + FRAME[0]
"""What a frame takes on each side: its padding and border."""
HEAD_TITLE = Ink(10.0, 600, "#1b1b1b")
"""A framed head's title ("Head 2")."""
HEAD_TITLE_GAP_PT = 4.0
"""Below it."""
NAME_DROP_MM = 2
"""Pages 2+ repeat the name line in the top margin, this far above the page's content."""
SCORE_GAP_PT = 4.0
"""Above a graded sheet's score, in its header."""
ASIDE_GAP_PT = 8.0
"""Below the rules box (and worked example) above a head that flows over pages."""
