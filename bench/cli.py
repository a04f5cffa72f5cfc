"""The benches' command lines."""

from __future__ import annotations

import argparse


def parser(doc: str | None) -> argparse.ArgumentParser:
    """A bench's parser, whose --help shows the module's docstring `doc` as written (how to
    run it, what it measures and writes), line breaks kept."""
    return argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
