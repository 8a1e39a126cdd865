"""A plug-in whose module raises as it loads (tests/core/test_kind_protocol.py)."""

raise RuntimeError("this plug-in is broken")
