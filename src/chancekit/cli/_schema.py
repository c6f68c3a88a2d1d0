"""``chancekit schema COMMAND``: the JSON Schema of a command's ``--json`` output."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    from chancekit.cli.schemas import SCHEMAS

    p = sub.add_parser(
        "schema",
        help="the JSON Schema of a command's --json output",
        description="Print the JSON Schema (draft 2020-12) that COMMAND's --json output "
        "follows. The output is itself JSON, so this command has no --json flag. Field by "
        "field description: docs/cli.md.",
        epilog="examples:\n  chancekit schema dist\n  chancekit schema roll > roll.schema.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("name", metavar="COMMAND", choices=sorted(SCHEMAS),
                   help=f"one of: {', '.join(sorted(SCHEMAS))}")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from chancekit.cli.schemas import SCHEMAS

    json.dump(SCHEMAS[args.name], sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0
