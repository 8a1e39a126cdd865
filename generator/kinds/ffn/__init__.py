"""The feed-forward layer by hand, one kind in one folder: its problem, steps, draw, sheet, settings and words."""
