"""The ``hmodel spread`` subcommand: a target and a key sample in, a spread per model out."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hmodel.backend.base import Backend
from hmodel.errors import InputError
from hmodel.model import ModelInfo
from hmodel.ops.inventory import import_module, models_of
from hmodel.ops.live import live_spread, parse_address
from hmodel.ops.options import add_output_format
from hmodel.ops.sample import read_file, sample_function, spread_of
from hmodel.ops.spread import Spread, check_image, render_spread, save_image

__all__ = ["configure", "run_spread", "target_models"]


def target_models(target: str) -> list[ModelInfo]:
    """Return the models named by ``module:Model`` or every model of ``module``.

    Raises:
        InputError: The module cannot be imported, has no such model, or has none.
    """
    module_name, sep, name = target.partition(":")
    module = import_module(module_name)
    models = models_of(module)
    if sep:
        models = [m for m in models if name in (m.cls.__name__, m.name)]
        if not models:
            raise InputError(f"{module_name} has no model {name!r}", value=target)
    if not models:
        raise InputError(f"{module_name} declares no model", value=target)
    return models


def _records(args: argparse.Namespace, info: ModelInfo) -> Iterator[Any]:
    if args.keys is None:
        raise InputError(
            "give a key sample: --keys FILE.csv|FILE.jsonl, --keys module:function, or "
            "--hbase HOST:PORT to scan the live table"
        )
    path = Path(args.keys)
    if path.suffix.lower() in (".csv", ".jsonl", ".ndjson", ".json") or path.exists():
        return read_file(path)
    return sample_function(args.keys)(info.cls)


def _live(
    address: str, models: list[ModelInfo], limit: int | None, *, thrift2: bool = False
) -> list[Spread]:
    """Scan each model's live table over Thrift and count against its real regions."""
    host, port = parse_address(address)
    backend: Backend
    if thrift2:
        from hmodel.backend.thrift2 import Thrift2Backend  # a live cluster is read only here

        backend = Thrift2Backend(host, port)
    else:
        from hmodel.backend.thrift import ThriftBackend

        backend = ThriftBackend(host, port)
    with backend:
        return [live_spread(backend, info, limit=limit) for info in models]


def run_spread(args: argparse.Namespace) -> int:
    """Run ``hmodel spread``; return 0, or 1 with ``--fail-on-hotspot`` and a hotspot.

    Raises:
        OperationsError: Bad target, sample or image path.
    """
    if args.image is not None:
        check_image(args.image)
    sources = [args.keys, args.hbase, args.hbase2]
    if sum(source is not None for source in sources) > 1:
        raise InputError("give one of --keys, --hbase and --hbase2")
    models = target_models(args.target)
    if args.hbase is not None:
        spreads = _live(args.hbase, models, args.limit)
    elif args.hbase2 is not None:
        spreads = _live(args.hbase2, models, args.limit, thrift2=True)
    else:
        spreads = [spread_of(info, _records(args, info), limit=args.limit) for info in models]
    if args.output_format == "json":
        print(json.dumps([s.as_dict() for s in spreads], indent=2))
    else:
        print("\n\n".join(render_spread(s) for s in spreads))
    if args.image is not None:
        save_image(spreads, args.image)
        if args.output_format != "json":
            print(f"\nimage written to {args.image}")
    hot = any(s.verdict in ("hotspot", "single region") for s in spreads)
    return 1 if args.fail_on_hotspot and hot else 0


def configure(commands: Any) -> None:
    """Add the ``spread`` subcommand to ``commands`` (an argparse subparsers object)."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "spread",
        help="count how a sample of keys lands on a table's regions",
        description="Encode a sample of key fields with each model's rowkey and count the\n"
        "keys per region of the table's declared split points (K3, K8, K11). Prints a\n"
        "table with a bar per region and a verdict: even (max/mean <= 1.5), uneven,\n"
        "hotspot (max/mean >= 2 or an empty region) or single region (not pre-split).",
        epilog="examples:\n"
        "  hmodel spread examples.ecommerce.models:Order --keys orders.csv\n"
        "  hmodel spread examples.ecommerce.models --keys examples.ecommerce.dataset:key_sample\n"
        "  hmodel spread examples.ecommerce.models:Order --hbase localhost:9090\n"
        "exit status: 0, or 1 with --fail-on-hotspot when a spread is a hotspot or a "
        "single region; 2 for bad input.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "target", metavar="MODULE[:MODEL]", help="a module (all its models) or one model"
    )
    parser.add_argument(
        "--keys",
        metavar="SAMPLE",
        help="a .csv (header names the key fields) or .jsonl file, or module:function "
        "yielding mappings of key fields or model instances (it may take the model class)",
    )
    parser.add_argument(
        "--hbase",
        metavar="HOST:PORT",
        help="scan the live table's rowkeys over HBase's Thrift1 API and count them per "
        "region of its real regions (keys only; rows of other record types are skipped)",
    )
    parser.add_argument(
        "--hbase2",
        metavar="HOST:PORT",
        help="the same over HBase 2's Thrift2 API, whose region list is the cluster's "
        "(getAllRegionLocations)",
    )
    parser.add_argument(
        "--limit", type=int, metavar="N", help="read at most N sample records (or rows)"
    )
    add_output_format(parser)
    parser.add_argument(
        "--image", type=Path, metavar="PATH", help="also draw a .png/.svg (needs matplotlib)"
    )
    parser.add_argument("--fail-on-hotspot", action="store_true", help="exit 1 on a hotspot")
    parser.set_defaults(run=run_spread)
