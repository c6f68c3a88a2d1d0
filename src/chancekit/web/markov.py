"""The Markov page's job (``POST /api/markov``): the built-in processes of
:mod:`chancekit.markov`, thin calls with the page's inputs, answered as JSON.

Three kinds: ``usage-die`` (:func:`~chancekit.markov.usage_die`: a ladder such as
``"12,10,8,6,4"`` and the faces that step it down), ``race``
(:func:`~chancekit.markov.hp_race`: one side's hit points and the damage it takes a
round, or two sides, simultaneous or alternating) and ``first-success``
(:func:`~chancekit.markov.first_success` of a fairness system spec such as ``prd:0.25``,
read by :func:`chancekit.fair.system_from_spec`) and ``until``
(:func:`~chancekit.markov.roll_until`: rolls of a die until the last rolls are a given
sequence, such as two 6s in a row). Each answer is the exact mean and
variance of the count (steps, rounds, pulls), its distribution up to a step count, with
the probability of more stated exactly (``tail``), and for a two-sided race the winner.

A refused input raises :class:`InputError`, which names the page's field (``field``) and
says where in the page's words (``where``: "die 2 of the ladder"), so the page can place
it; :mod:`chancekit.web.compute` turns it into the API's 422 error. This module imports
no other web module (the app and the job table import it).

>>> out = markov_job({"kind": "usage-die", "ladder": "6,4", "down": "1,2"}, lambda d, t: None)
>>> out["mean"], out["variance"], out["unit"]          # 6/2 + 4/2; (3*2) + (2*1)
('5', '8', 'uses')
>>> [(r["count"], r["p_exact"]) for r in out["rows"][:2]], out["complete"]
([(2, '1/6'), (3, '7/36')], False)
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from chancekit.errors import ChancekitError, InvalidValueError
from chancekit.limits import MAX_FRACTION_CHARS, MAX_LADDER, MAX_ROWS

#: the kinds of process the page shows
KINDS = ("usage-die", "race", "first-success", "until")
#: when no step count is asked for, the distribution is walked until at most this much
#: probability is left (the rest is stated as the tail)
DEFAULT_TAIL = Fraction(1, 10**6)
#: when walking to DEFAULT_TAIL is past the work limit, the counts listed instead (the
#: exact mean and variance come from a solve, not the walk, so they are still given)
FALLBACK_UPTO = 200

Progress = Callable[..., None]


#: the library's advice for Python callers, as this page says it
_WORDS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(a), b) for a, b in (
    # (the page sets no work budget: the lift a Python caller is told of does not apply)
    (r"; lift it with max_work=\S+ \(every chancekit\.markov query takes it; --max-work "
     r"\S+ on the command line\), or ", "; "),
    (r"^(a race of .*?); keep in the state only what the next step depends on, or ask for "
     r"less \(a smaller upto, a larger tail\)", r"\1; use fewer hit points"),
    (r"\b(?:absorb|stationary)\(\) needs (.*?); keep in the state only what the next step "
     r"depends on, or ask for less \(a smaller upto, a larger tail\)",
     r"the chain needs \1; use smaller inputs (fewer hit points)"),
    (r"keep in the state only what the next step depends on, or ask for less \(a smaller "
     r"upto, a larger tail\)", "ask for fewer steps (Show up to)"),
    (r"; keep in the state only what the next step depends on", ""),
    (r"\bsteps\(\): ", ""),
    (r"\bsteps\(\) needs", "the count's distribution needs"),
    (r"first_success and long_run take", "this page takes"),
))


def page_message(message: str) -> str:
    """A library message about a Markov process in this page's words.

    >>> page_message("steps(): step 9 needs too much work; keep in the state only what the "
    ...              "next step depends on, or ask for less (a smaller upto, a larger tail)")
    'step 9 needs too much work; ask for fewer steps (Show up to)'
    """
    for pattern, repl in _WORDS:
        message = pattern.sub(repl, message)
    return message


class InputError(Exception):
    """A refused input: the library's ``error`` (a ChancekitError), the page's ``field``
    and ``where`` it is, and its ``message`` in the page's words."""

    def __init__(self, error: ChancekitError, field: str, where: str) -> None:
        super().__init__(str(error))
        self.error = error
        self.field = field
        self.where = where
        self.message = page_message(str(error))


def _text(q: Fraction) -> str | None:
    """``"3/16"``; None past :data:`~chancekit.limits.MAX_FRACTION_CHARS` (sizes read from
    the bit lengths, so a huge fraction's text is never built)."""
    if q.numerator.bit_length() + q.denominator.bit_length() > 4 * MAX_FRACTION_CHARS:
        return None
    text = str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"
    return text if len(text) <= MAX_FRACTION_CHARS else None


def _float(q: Fraction) -> float | None:
    try:
        f = float(q)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


def _guard(field: str, where: str, call: Callable[[], Any]) -> Any:
    try:
        return call()
    except ChancekitError as exc:
        raise InputError(exc, field, where) from None


def _die(text: str, field: str, where: str) -> Any:
    """A die as the page writes it: a number of sides (``12``), ``d12`` or notation
    (``1d8+1``, read as the Dice page reads avrae)."""
    from chancekit.dice import d
    from chancekit.dice.notation import dist

    text = text.strip()
    if re.fullmatch(r"[0-9]+", text):  # ASCII only: "²".isdigit() is True, int("²") fails
        sides = int(text)
        if not 1 <= sides <= 10**6:
            raise InputError(InvalidValueError(
                f"{text[:20]} sides: a die has 1 to 1,000,000 sides"), field, where)
        return d(sides)
    return _guard(field, where, lambda: dist(text))


def _notation(text: str, field: str, where: str) -> Any:
    """Damage as dice notation (``2d6``, ``1d8+2``; a bare ``3`` is 3 damage, as the
    command line reads it)."""
    from chancekit.dice.notation import dist

    return _guard(field, where, lambda: dist(text.strip()))


def _faces(text: str, field: str, where: str) -> list[int]:
    out = []
    for part in re.split(r"[,\s]+", text.strip()):
        if not part:
            continue
        if not re.fullmatch(r"-?\d{1,9}", part):
            raise InputError(InvalidValueError(
                f"{part[:40]!r} is not a face: write whole numbers separated by commas, "
                "e.g. 1,2"), field, where)
        out.append(int(part))
    if not out:
        raise InputError(InvalidValueError("no faces given: write whole numbers separated "
                                           "by commas, e.g. 1,2"), field, where)
    return out


def _usage(req: dict[str, Any], upto: int | None, tail: Fraction | None) -> dict[str, Any]:
    from chancekit import markov

    # dice separated by commas ("12, 1d8 + 1, d6"), or by spaces when there is no comma
    text = req["ladder"].strip()
    parts = [p.strip() for p in re.split(r"," if "," in text else r"\s+", text) if p.strip()]
    if not parts:
        raise InputError(InvalidValueError("the ladder is empty: write its dice, largest "
                                           "first, e.g. 12,10,8,6,4"), "ladder", "ladder")
    if len(parts) > MAX_LADDER:
        raise InputError(InvalidValueError(f"the ladder has {len(parts)} dice; at most "
                                           f"{MAX_LADDER}"), "ladder", "ladder")
    dice = [_die(p, "ladder", f"die {i + 1} of the ladder ({p[:40]})")
            for i, p in enumerate(parts)]
    down = _faces(req.get("down") or "1,2", "down", "step-down faces")
    for i, (p, die) in enumerate(zip(parts, dice, strict=True)):
        if not any(x in down for x in die.outcomes()):
            raise InputError(InvalidValueError(
                f"{p[:40]} never rolls one of {', '.join(map(str, sorted(set(down))))}, so "
                "it would never step down: add a face it can roll"), "down",
                f"die {i + 1} of the ladder ({p[:40]})")
    steps = _guard("ladder", "the usage die",
                   lambda: markov.usage_die(dice, down=set(down), upto=upto, tail=tail))
    title = "uses of the usage die " + " → ".join(parts) + \
        f", stepping down on {', '.join(map(str, sorted(set(down))))}"
    return {"steps": steps, "unit": "uses", "title": title, "winner": None}


_SIDES = {"first": "first side wins", "second": "second side wins",
          "both": "both down in the same round"}


def _race(req: dict[str, Any], upto: int | None, tail: Fraction | None) -> dict[str, Any]:
    from chancekit import markov

    order = req.get("order") or "simultaneous"
    two = req.get("hp2") is not None
    # each damage is checked on its own first (an error names its field), then handed on
    # as the text it is, so the library's messages quote what was typed
    _notation(req["damage"], "damage", "the first side's damage" if two else "damage")
    dmg = req["damage"].strip()
    if not two:
        race = _guard("damage", "the race", lambda: markov.hp_race(
            req["hp"], dmg, order=order, upto=upto, tail=tail))
        title = f"rounds until {req['hp']:,} hit points are gone at {req['damage'].strip()} a round"
    else:
        _notation(req["damage2"], "damage2", "the second side's damage")
        dmg2 = req["damage2"].strip()
        # each side's damage is what it deals to the other (as hp_race and the CLI)
        race = _guard("damage", "the race", lambda: markov.hp_race(
            (req["hp"], req["hp2"]), (dmg, dmg2), order=order, upto=upto, tail=tail))
        title = (f"rounds of a race: the first side ({req['hp']:,} HP) deals "
                 f"{req['damage'].strip()}, the second ({req['hp2']:,} HP) deals "
                 f"{req['damage2'].strip()} a round, "
                 f"{'the first striking first' if order == 'alternating' else 'both at once'}")
    winner = None
    if race.winner is not None:
        winner = []
        for key in ("first", "second", "both"):
            p = race.winner.probability(key)
            if key == "both" and order == "alternating":
                continue
            winner.append({"outcome": key, "label": _SIDES[key], "p": _float(p),
                           "p_exact": _text(p)})
    return {"steps": race.rounds, "unit": "rounds", "title": title, "winner": winner}


def _pity(req: dict[str, Any], upto: int | None, tail: Fraction | None) -> dict[str, Any]:
    from chancekit import markov
    from chancekit.fair import system_from_spec

    spec = req["system"].strip()
    system = _guard("system", "system", lambda: system_from_spec(spec, 2))
    raw = (req.get("value") or "").strip()
    if not raw:
        value: Any = "featured" if "featured" in system.values else True
    else:
        value = {"true": True, "false": False}.get(raw.lower(), raw)
    if value not in system.values:
        shown = ", ".join(str(v).lower() if isinstance(v, bool) else str(v)
                          for v in system.values[:20])
        more = ", ..." if len(system.values) > 20 else ""
        raise InputError(InvalidValueError(
            f"{raw[:40]!r} is not one of this system's values ({shown}{more})" if raw else
            f"this system draws {shown}{more}: say which one to wait for"), "value",
            "waiting for")
    steps = _guard("system", "system", lambda: markov.first_success(
        system, value, upto=upto, tail=tail))
    what = str(value).lower() if isinstance(value, bool) else str(value)
    title = f"pulls of {spec} until the first {'success' if value is True else what}"
    return {"steps": steps, "unit": "pulls", "title": title, "winner": None}


def _until(req: dict[str, Any], upto: int | None, tail: Fraction | None) -> dict[str, Any]:
    from chancekit import markov

    text = req["die"].strip()
    die = _notation(text, "die", "die")
    seq = tuple(_faces(req["sequence"], "sequence", "sequence"))
    if len(seq) > 12:
        raise InputError(InvalidValueError(f"the sequence has {len(seq)} rolls; at most 12"),
                         "sequence", "sequence")
    missing = [x for x in seq if x not in die]
    if missing:
        raise InputError(InvalidValueError(
            f"{text[:40]} never rolls {missing[0]}, so the sequence never comes up"),
            "sequence", "sequence")
    steps = _guard("die", "die", lambda: markov.roll_until(
        die, lambda last: last == seq, len(seq), upto=upto, tail=tail))
    title = f"rolls of {text} until {', '.join(map(str, seq))}" + (
        " in a row" if len(seq) > 1 else "")
    return {"steps": steps, "unit": "rolls", "title": title, "winner": None}


def markov_job(req: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """The answer for one validated request (:func:`chancekit.web.app.parse_markov`):
    ``mean``/``variance`` (exact text when short, and floats), ``sd``, ``rows`` (count,
    probability, at least, at most: floats, and exact fractions when short) up to
    ``shown_upto``, ``tail`` (the exact probability of a larger count: what the rows do
    not show), ``complete`` (nothing left over), ``winner`` (a two-sided race) and
    ``title``/``unit``. O(the process's own cost + rows)."""
    upto = req.get("upto")
    tail = None if upto is not None else DEFAULT_TAIL
    kind = req["kind"]
    run = {"usage-die": _usage, "race": _race, "first-success": _pity, "until": _until}[kind]
    notes: list[str] = []
    try:
        got = run(req, upto, tail)
    except InputError as exc:
        # the walk to one in a million left was refused, not the solve (chancekit.markov
        # says "steps(): " before the walk's refusals, "steps() needs" before the solve's):
        # list fewer counts
        if upto is not None or not str(exc.error).startswith("steps(): "):
            raise
        got = run(req, FALLBACK_UPTO, None)
        notes.append(f"Listed up to {FALLBACK_UPTO} {got['unit']}: walking on until at most "
                     f"one in a million is left needs more work than the limit "
                     f"({getattr(exc.error, 'limit', None) or 'work'}); the mean and variance "
                     "are exact all the same.")
    steps = got["steps"]
    pmf = list(steps.pmf)
    cut = max(0, len(pmf) - MAX_ROWS)
    if cut:
        pmf = pmf[:MAX_ROWS]
    shown = sum(pmf, Fraction(0))
    rest = 1 - shown  # steps.tail plus any rows cut here: exactly what is not shown
    rows = []
    below = Fraction(0)  # P(count < t)
    for t, p in enumerate(pmf):
        if p:
            ge, le = 1 - below, below + p
            rows.append({"count": t, "label": str(t), "x": t, "p": _float(p),
                         "p_exact": _text(p), "ge": _float(ge), "ge_exact": _text(ge),
                         "le": _float(le), "le_exact": _text(le)})
        below += p
    mean, var = steps.mean, steps.variance
    sd = _float(var)
    progress(1, 1)
    return {
        "kind": kind, "title": got["title"], "unit": got["unit"],
        "mean": _text(mean), "mean_float": _float(mean),
        "variance": _text(var), "variance_float": _float(var),
        "sd": None if sd is None else math.sqrt(sd),
        "rows": rows, "shown_upto": len(pmf) - 1, "rows_cut": cut,
        "tail": _text(rest), "tail_float": _float(rest), "complete": rest == 0,
        "winner": got["winner"], "notes": notes,
    }
