"""The transformer block by hand, one kind in one folder: attention, residuals and the feed-forward layer."""
