"""The benches' command lines."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path


def results_option(parser: argparse.ArgumentParser, bench: str) -> None:
    """`--results PATH`: where the bench writes its results file (a file of the temporary
    folder named after `bench` unless given)."""
    parser.add_argument(
        "--results",
        type=Path,
        default=Path(tempfile.gettempdir()) / f"bench-{bench}.json",
        help="the results file (%(default)s)",
    )


def parser(doc: str | None) -> argparse.ArgumentParser:
    """A bench's parser, whose --help shows the module's docstring `doc` as written (how to
    run it, what it measures and writes), line breaks kept."""
    return argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
