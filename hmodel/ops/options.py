"""Command-line options several ``hmodel`` subcommands share."""

from __future__ import annotations

import argparse

__all__ = ["add_output_format"]


def add_output_format(parser: argparse.ArgumentParser) -> None:
    """Add ``--output-format`` (alias ``--format``): ``text`` (the default) or ``json``."""
    parser.add_argument(
        "--output-format",
        "--format",
        dest="output_format",
        choices=("text", "json"),
        default="text",
        help="text for a person, json for a program (default: %(default)s; --format is an alias)",
    )
