"""Domain errors: raised by the core, turned into one-line messages by the CLI."""


class AttnsheetError(Exception):
    """Any error a user can cause and fix; its message is one line meant for them."""


class ProblemError(AttnsheetError):
    """A problem (file, JSON value or matrix) that is malformed or cannot be solved."""


class InputError(AttnsheetError):
    """A file or stream that cannot be read."""


class LayoutError(AttnsheetError):
    """A sheet whose matrices cannot be printed on a page at a legible size."""


class BatchError(AttnsheetError):
    """A batch that stopped part-way: says what is on disk and what is not."""


class Interrupted(BatchError):
    """The user (SIGINT) or the system (SIGTERM) stopped the batch."""
