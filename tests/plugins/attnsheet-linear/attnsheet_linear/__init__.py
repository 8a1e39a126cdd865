"""A linear layer, y = W·x + b, worked by hand: an exercise of a teacher's own, registered with attnsheet as a plug-in."""
