"""The mixture of experts by hand, one kind in one folder: its problem, steps, draw, sheet, settings and words."""
