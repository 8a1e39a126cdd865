"""Run the command-line tool as `python -m generator` (and as `attnsheet`)."""

import sys


def main() -> None:
    """Import the tool and run it; Ctrl-C while it is still loading is a clean stop too."""
    try:
        from generator.cli import main as run
    except KeyboardInterrupt:
        sys.stderr.write("attnsheet: interrupted; nothing was written\n")
        sys.exit(130)
    run()


if __name__ == "__main__":
    main()
