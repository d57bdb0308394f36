"""Command-line options several ``hmodel`` subcommands share."""

from __future__ import annotations

import argparse

__all__ = ["add_output_format"]


#: What ``--output-format`` says of itself unless a command says more.
_HELP = "text for a person, json for a program (default: %(default)s; --format is an alias)"


def add_output_format(parser: argparse.ArgumentParser, help_text: str = _HELP) -> None:
    """Add ``--output-format`` (alias ``--format``): ``text`` (the default) or ``json``.

    ``help_text`` replaces the option's help text, for a command whose formats carry more
    than one thing (``hmodel inspect``: a module and its check).
    """
    parser.add_argument(
        "--output-format",
        "--format",
        dest="output_format",
        choices=("text", "json"),
        default="text",
        help=help_text,
    )
