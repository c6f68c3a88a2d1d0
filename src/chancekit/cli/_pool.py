"""``chancekit pool``: dice pools evaluated face by face (RISK battles, largest set,
straights, a user's :class:`~chancekit.dice.pool.FaceRule`), the pool algebra's presets
(:mod:`chancekit.dice.mechanics`: cancel, face to face, matching sets, straights, poker
hands) and its expression form, printed as ``dist`` prints."""

from __future__ import annotations

import argparse
import re

from chancekit.cli._dice import show_distribution

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    from typing import Any

_KINDS = ("risk", "largest-set", "straight", "rule", "cancel", "face-to-face", "sets",
          "straights", "poker", "expr")
_DICE = re.compile(r"(\d{0,7})d(\d{1,9})")
_COUNT = re.compile(r"\d{1,7}")
_POOL = re.compile(r"\d{0,7}d\d{1,9}(\+\d{0,7}d\d{1,9})*")


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``pool`` to ``sub``."""
    p = sub.add_parser(
        "pool",
        help="dice pools, exactly: RISK, cancelling, face to face, sets, straights, poker, "
        "the pool algebra, your own rule",
        description="The exact distribution of a dice pool mechanic, evaluated face by face "
        "in polynomial time (docs/dice.md, docs/pools.md): 'risk A D' (A attacking vs D "
        "defending d6, or two pools 'risk 3d6 2d8'; outcome = (attacker losses, defender "
        "losses); --ties attacker); 'cancel NdF NdF' (the first pool's successes, dice >= "
        "--success, left after the second's cancel them: --match any|beat|equal); "
        "'face-to-face NdF NdF' ((first's successes, second's): a die succeeds if it beats "
        "every die of the other side); 'sets NdF...' (largest matching set, --wild faces "
        "join it); 'largest-set NdF...' (the same, no wild faces); 'straight NdF...' "
        "(longest run of consecutive faces); 'straights NdF...' (every straight); 'poker "
        "NdF...' (the poker hand); 'expr TEXT NAME=NdF...' (an expression of the pool "
        "algebra over named pools, e.g. \"a.sort_pair('>', b).count()\"; a tuple of "
        "evaluations gives tuple outcomes); 'rule MODULE:NAME NdF...' (a FaceRule of yours, "
        "imported from MODULE, which is looked up from the current folder too; each NdF is "
        "one pool: counts[0], counts[1], ...). Printed as `chancekit dist` prints.",
        epilog="examples:\n"
        "  chancekit pool risk 3 2\n"
        "  chancekit pool risk 10d6 10d6 --ties attacker\n"
        "  chancekit pool cancel 10d6 10d6 --success 5\n"
        "  chancekit pool face-to-face 5d20 3d20\n"
        "  chancekit pool sets 12d10 --wild 9,10\n"
        "  chancekit pool straights 8d6\n"
        "  chancekit pool poker 5d6\n"
        "  chancekit pool expr \"(a - b).count(), a.largest_count()\" a=4d6 b=2d6\n"
        "  chancekit pool largest-set 5d6\n"
        "  chancekit pool straight 5d6 --json\n"
        "  chancekit pool rule mypkg.mymodule:RULE 4d6",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("kind", choices=_KINDS, help="the mechanic")
    p.add_argument("spec", nargs="+", metavar="ARG",
                   help="risk: ATTACKERS DEFENDERS; largest-set/straight: dice (5d6, or "
                   "3d6 2d8); rule: MODULE:NAME then one NdF per pool")
    p.add_argument("--success", metavar="N", default="5",
                   help="cancel: the least face that is a success (default 5)")
    p.add_argument("--match", choices=("any", "beat", "equal"), default="any",
                   help="cancel: a block cancels any success, one it is at least as high as "
                   "(beat), or an equal one (default any)")
    p.add_argument("--ties", choices=("defender", "attacker"), default="defender",
                   help="risk: who wins a tied pair (default defender)")
    p.add_argument("--wild", metavar="FACES", default="",
                   help="sets: faces that count as any face, e.g. 9,10")
    p.add_argument("--json", action="store_true", help="machine-readable output (as dist)")
    p.add_argument("--plot", metavar="FILE.png", help="also save a bar chart (matplotlib)")
    p.add_argument("--all", action="store_true", help="show every outcome")
    p.set_defaults(func=run_pool)


def parse_dice(text: str) -> list[Any]:
    """``"5d6"`` -> five ``d(6)``; ``"d8"`` -> one. Refuses anything else, clearly."""
    from chancekit.dice.distribution import d
    from chancekit.errors import InvalidValueError

    m = _DICE.fullmatch(text.strip())
    if not m:
        raise InvalidValueError("dice", text, "NdF, e.g. 5d6 or d8")
    n = int(m.group(1)) if m.group(1) else 1
    from chancekit._validate import require_int
    from chancekit.limits import MAX_POOL_DICE

    require_int("number of dice", n, lo=1, hi=MAX_POOL_DICE)
    return n * [d(int(m.group(2)))]


def load_rule(path: str) -> Any:
    """Import ``MODULE:NAME`` (``NAME`` may be dotted) and return a FaceRule instance; a
    FaceRule subclass is instantiated without arguments. The current folder is searched
    too (as ``python -m`` does)."""
    import importlib
    import os
    import sys

    from chancekit.dice.pool import FaceRule
    from chancekit.errors import InvalidTypeError, InvalidValueError, quote

    module_name, sep, attr = path.partition(":")
    if not sep or not module_name or not attr:
        raise InvalidValueError("rule", path, "a Python path MODULE:NAME, e.g. "
                                "mypkg.mymodule:RULE")
    here = os.getcwd()
    added = here not in sys.path and "" not in sys.path
    if added:  # only for this import: sys.path is left as it was
        sys.path.append(here)
    try:
        obj: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        raise InvalidValueError(
            f"rule {quote(path)}: no module named {quote(e.name or module_name)} (looked in "
            "the current folder and on sys.path; set PYTHONPATH or install the package)"
        ) from None
    except Exception as e:  # the module itself failed (a syntax error, a failing import)
        raise InvalidValueError(f"rule {quote(path)}: importing {quote(module_name)} failed: "
                                f"{type(e).__name__}: {e}") from None
    finally:
        if added and here in sys.path:
            sys.path.remove(here)
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise InvalidValueError(f"rule {quote(path)}: {quote(module_name)} has no "
                                    f"attribute {quote(attr)}")
        obj = getattr(obj, part)
    if isinstance(obj, type) and issubclass(obj, FaceRule):
        try:
            obj = obj()
        except TypeError as e:
            raise InvalidValueError(f"rule {quote(path)}: the FaceRule class needs "
                                    f"arguments ({e}); export an instance instead") from None
    if not isinstance(obj, FaceRule):
        raise InvalidTypeError(f"rule {path}", obj, "a chancekit.dice.pool.FaceRule (an "
                               "instance, or a subclass taking no arguments)")
    return obj


def parse_pool(text: str) -> Any:
    """``"5d6"`` -> ``Pool(d(6), 5)``; ``"3d6+2d8"`` -> a pool of those five dice."""
    from chancekit.dice.pool import Pool

    dice = [die for part in text.split("+") for die in parse_dice(part)]
    if len(set(dice)) == 1:
        return Pool(dice[0], len(dice))
    return Pool.of(dice)


def _faces(text: str) -> list[int]:
    from chancekit.errors import InvalidValueError

    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if not re.fullmatch(r"-?\d{1,9}", part):
            raise InvalidValueError("--wild", text, "faces separated by commas, e.g. 9,10")
        out.append(int(part))
    return out


def _algebra(kind: str, spec: list[str], args: argparse.Namespace) -> tuple[Any, str]:
    """The presets and the expression form (chancekit.dice.mechanics)."""
    from chancekit.dice import mechanics
    from chancekit.errors import InvalidValueError

    if kind == "expr":
        if len(spec) < 2:
            raise InvalidValueError("pool expr takes TEXT and at least one NAME=NdF, e.g. "
                                    "chancekit pool expr \"a.largest_count()\" a=5d6")
        pools = {}
        for item in spec[1:]:
            name, sep, dice = item.partition("=")
            if not sep or not re.fullmatch(r"[A-Za-z_]\w{0,30}", name):
                raise InvalidValueError("pool expr", item, "NAME=NdF, e.g. a=4d6")
            pools[name] = parse_pool(dice)
        return mechanics.evaluate_text(spec[0], pools), f"{spec[0]} with {' '.join(spec[1:])}"
    want = mechanics.PRESETS[kind][0]
    if want == 2 and len(spec) != 2:
        raise InvalidValueError(f"pool {kind} takes two pools, e.g. chancekit pool {kind} "
                                "5d6 3d6")
    pools = [parse_pool(t) for t in spec] if want == 2 else [parse_pool("+".join(spec))]
    if not _COUNT.fullmatch(str(args.success).lstrip("-")):
        raise InvalidValueError("--success", args.success, "a whole number, e.g. 5")
    result = mechanics.preset(kind, pools, success=int(args.success), match=args.match,
                              ties=args.ties, wild=_faces(args.wild))
    what = {"cancel": f"successes ({args.success}+) of {spec[0]} left after {spec[1]} "
            f"cancels (match {args.match})" if want == 2 else "",
            "risk": f"RISK: {spec[0]} attacking vs {spec[-1]} defending (attacker losses, "
            f"defender losses), ties to the {args.ties}",
            "face-to-face": f"face to face: {spec[0]} vs {spec[-1]} (successes of each)",
            "sets": f"largest matching set of {' '.join(spec)}" + (
                f", {args.wild} wild" if args.wild else ""),
            "straights": f"all straights of {' '.join(spec)}",
            "poker": f"poker hand of {' '.join(spec)}"}[kind]
    return result, what


def run_pool(args: argparse.Namespace) -> int:
    from chancekit.dice import pool
    from chancekit.errors import ChancekitError, InvalidValueError, quote

    kind, spec = args.kind, list(args.spec)
    head: dict[str, Any] = {"kind": kind, "spec": spec, "rule": None}
    if kind in ("cancel", "face-to-face", "sets", "straights", "poker", "expr") or (
            kind == "risk" and spec and all(_POOL.fullmatch(t) for t in spec)):
        result, title = _algebra(kind, spec, args)
        return show_distribution(result, title, args, head, "pool")
    if kind == "risk":
        if len(spec) != 2:
            raise InvalidValueError("pool risk takes ATTACKERS DEFENDERS, e.g. "
                                    "chancekit pool risk 3 2")
        if not all(_COUNT.fullmatch(text) for text in spec):
            raise InvalidValueError("pool risk", " ".join(spec), "two whole numbers, e.g. 3 2")
        a, b = int(spec[0]), int(spec[1])
        result = pool.risk_battle(a, b)
        title = f"RISK: {a} attacking vs {b} defending (attacker losses, defender losses)"
    elif kind in ("largest-set", "straight"):
        dice = [die for text in spec for die in parse_dice(text)]
        if kind == "largest-set":
            result = pool.largest_set(dice)
            title = f"largest set of {' '.join(spec)}"
        else:
            result = pool.longest_straight(dice)
            title = f"longest straight of {' '.join(spec)}"
    else:
        if len(spec) < 2:
            raise InvalidValueError("pool rule takes MODULE:NAME and at least one pool, e.g. "
                                    "chancekit pool rule mypkg.mymodule:RULE 4d6")
        rule = load_rule(spec[0])
        head["rule"] = spec[0]
        pools = [parse_dice(text) for text in spec[1:]]
        try:
            result = pool.evaluate_pool(rule, *pools)
        except ChancekitError:
            raise
        except Exception as e:  # the user's step or final raised
            raise InvalidValueError(f"rule {quote(spec[0])} raised {type(e).__name__}: {e}"
                                    ) from None
        title = f"{spec[0]} on {' '.join(spec[1:])}"
    return show_distribution(result, title, args, head, "pool")
