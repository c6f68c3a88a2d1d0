"""``chancekit stream``: draws from a PCG32 stream, raw or named."""

from __future__ import annotations

import argparse
import sys

from chancekit.cli._common import check_text, parse_int_text, parse_seed
from chancekit.limits import MAX_BOUND_BITS

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    from typing import Any

#: draws are made and written this many at a time, so memory stays bounded whatever -n is
BLOCK = 1 << 16
#: up to this many draws, scalar calls (no numpy import: a cold `chancekit stream` stays quick)
SCALAR_UP_TO = 20_000


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "stream",
        help="draw numbers from a seeded PCG32 stream (raw or named)",
        description="Print draws from a reproducible PCG32 stream: the named stream "
        "Streams(SEED)[NAME] (--stream NAME, optionally inside --child areas), or the raw "
        "stream PCG32(SEED, N) (--stream N). As in every command, a number is a raw "
        "stream and a name is a named stream.",
        epilog="examples:\n"
        "  chancekit stream --seed 12345 --stream dwarvish-mines-1 -n 10 --bound 100\n"
        "  chancekit stream --seed 42 --stream 54 -n 6 --hex\n"
        "  chancekit stream --seed 12345 --stream combat --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--seed", required=True, metavar="S",
                   help="master seed (an integer; text is allowed for named streams)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--stream", metavar="X", help="a number: raw PCG32 stream X; a name: "
                       "the named stream Streams(S)[X] (default: raw stream 0)")
    which.add_argument("--id", metavar="NAME", help="the named stream NAME, even when NAME "
                       "looks like a number (--stream 7 is raw stream 7; --id 7 is named)")
    p.add_argument("--child", metavar="NAME", action="append", default=[],
                   help="with a named stream: look it up inside this child store "
                   "(repeatable)")
    p.add_argument("-n", type=int, default=10, metavar="K", help="how many draws (default 10)")
    p.add_argument("--bound", metavar="B",
                   help="draw integers in [0, B) with randbelow (default: raw 32-bit words)")
    p.add_argument("--skip", type=int, default=0, metavar="K",
                   help="advance K steps first (negative goes back)")
    p.add_argument("--hex", action="store_true", help="print words in hex")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from chancekit._validate import require_int
    from chancekit.cli._common import stream_value
    from chancekit.errors import InvalidValueError
    from chancekit.rng import PCG32, Streams

    seed = parse_seed(args.seed)
    n = require_int("-n", args.n, lo=0, hi=10_000_000)
    stream = check_text("--id", args.id) if args.id is not None else stream_value(args.stream)
    for name in args.child:
        check_text("--child", name)
    if args.bound is not None:
        bound = parse_int_text("--bound", args.bound)
        if bound is None or not 1 <= bound <= 1 << MAX_BOUND_BITS:
            raise InvalidValueError("--bound", args.bound if bound is None else bound,
                                    f"an integer from 1 to 2**{MAX_BOUND_BITS}")
        args.bound = bound
    if isinstance(stream, str):
        store = Streams(seed)
        for name in args.child:
            store = store.child(name)
        rng = store[stream]
    else:
        if args.child:
            raise InvalidValueError("--child goes with a named stream (--stream NAME)")
        if isinstance(seed, str):
            raise InvalidValueError("--seed", seed, "an integer for a raw stream (text seeds "
                                    "work with a named stream: --stream NAME)")
        rng = PCG32(seed, stream or 0)
    if args.skip:
        rng.advance(args.skip)
    out = sys.stdout
    if args.json:
        _write_json(out, rng, n, args, seed, stream)
    else:
        fmt = "0x{:08x}" if args.hex and args.bound is None else "{}"
        first = True
        for block in _blocks(rng, n, args.bound):
            text = " ".join(fmt.format(x) for x in block)
            out.write(text if first else " " + text)
            first = False
        out.write("\n")
    return 0


def _blocks(rng: Any, n: int, bound: int | None) -> Any:
    """The ``n`` draws, :data:`BLOCK` at a time (lists of ints): the same values as drawing
    them in one call, since the bulk methods equal that many scalar calls. Up to
    :data:`SCALAR_UP_TO` draws are scalar calls (C calls with the compiled core), which is
    quicker than importing numpy for the bulk methods."""
    for start in range(0, n, BLOCK):
        m = min(BLOCK, n - start)
        if n <= SCALAR_UP_TO:
            draw = rng.next_u32 if bound is None else rng.randbelow
            yield ([draw() for _ in range(m)] if bound is None
                   else [draw(bound) for _ in range(m)])
        elif bound is None:
            yield rng.u32_array(m).tolist()
        elif bound <= 1 << 32:
            yield rng.randbelow_array(bound, m).tolist()
        else:
            yield [rng.randbelow(bound) for _ in range(m)]


def _write_json(out: Any, rng: Any, n: int, args: argparse.Namespace, seed: Any,
                stream: Any) -> None:
    """``print_json``'s document, with the draws written block by block: the document is
    rendered with ``"draws": []`` by ``print_json`` itself and the draws spliced in, in its
    indented layout (one number a line), so the bytes are those of the one-shot form."""
    import io

    from chancekit.cli._output import print_json

    def render() -> str:
        state = rng.getstate()
        buf = io.StringIO()
        print_json("stream", {
            "seed": seed, "stream": stream, "children": args.child, "bound": args.bound,
            "skip": args.skip, "draws": [],
            "state_after": {"state": f"{state.state:#018x}", "inc": f"{state.inc:#018x}"}},
            file=buf)
        return buf.getvalue()

    marker = '"draws": []'
    head, _, _ = render().partition(marker)
    indent = head[head.rindex("\n") + 1:]  # the key's indent; items go one level deeper
    out.write(head + '"draws": [')
    sep = "\n" + indent * 2
    first = True
    for block in _blocks(rng, n, args.bound):
        out.write(("" if first else ",") + sep + ("," + sep).join(map(str, block)))
        first = False
    out.write("" if first else "\n" + indent)
    _, _, tail = render().partition(marker)  # state_after is known now
    out.write("]" + tail)
