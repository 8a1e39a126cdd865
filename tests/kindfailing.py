"""A plug-in whose module raises as it loads (tests/test_kind_protocol.py)."""

raise RuntimeError("this plug-in is broken")
