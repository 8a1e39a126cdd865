"""attnsheet: self-attention worksheets and exact answer keys, worked by hand."""

__version__ = "0.1.0"
