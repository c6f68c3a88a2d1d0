"""``chancekit stream``: draws from a PCG32 stream, raw or named."""

from __future__ import annotations

import argparse

from chancekit.cli._common import parse_seed


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
    p.add_argument("--bound", type=lambda s: int(s, 0), metavar="B",
                   help="draw integers in [0, B) with randbelow (default: raw 32-bit words)")
    p.add_argument("--skip", type=int, default=0, metavar="K",
                   help="advance K steps first (negative goes back)")
    p.add_argument("--hex", action="store_true", help="print words in hex")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from chancekit._validate import require_int
    from chancekit.cli._common import stream_value
    from chancekit.cli._output import print_json
    from chancekit.errors import InvalidValueError
    from chancekit.rng import PCG32, Streams

    seed = parse_seed(args.seed)
    n = require_int("-n", args.n, lo=0, hi=10_000_000)
    stream = args.id if args.id is not None else stream_value(args.stream)
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
    if args.bound is not None:
        draws = rng.randbelow_array(args.bound, n).tolist() if args.bound <= 2**32 else [
            rng.randbelow(args.bound) for _ in range(n)]
    else:
        draws = rng.u32_array(n).tolist()
    if args.json:
        state = rng.getstate()
        print_json("stream", {
            "seed": seed, "stream": stream, "children": args.child, "bound": args.bound,
            "skip": args.skip, "draws": draws,
            "state_after": {"state": f"{state.state:#018x}", "inc": f"{state.inc:#018x}"}})
    else:
        fmt = "0x{:08x}" if args.hex and args.bound is None else "{}"
        print(" ".join(fmt.format(x) for x in draws))
    return 0
