"""Work budgets: one total budget of work per evaluation, charged by estimates made
before each step starts.

Every exact step that can be expensive (a polynomial power, a pool walk, a pairwise
combination, an explosion) first *estimates* its work in **units** of about 20 ns of CPU
on the reference machine (docs/performance.md, "Work units") and charges the estimate to
the evaluation's :class:`Budget`. The budget refuses, with a
:class:`~chancekit.errors.LimitError` naming the limit, as soon as the estimates of all the
steps of one evaluation add up past the limit — before the step that would cross it does
any work. So no evaluation runs much longer than its limit, however many cheap-looking
steps it has (``(d1000 % d1000)`` summed 60 times is refused at the 13th term, not after
27 s).

Steps also *count* the work they actually do (:meth:`Budget.count`); the calibration test
(``tests/test_work_calibration.py``) checks over a corpus of expensive inputs that the
counted work never exceeds the estimate by more than :data:`CALIBRATION_FACTOR`, and the
benchmark ``benchmarks/bench_limits.py`` measures the seconds a unit really costs.

A budget is opened by the outermost call (``chancekit.dist`` opens one for the whole
expression); calls made inside it share it. With no budget open, :func:`charge` opens a
one-step budget with the limit the caller names.

>>> from chancekit.limits import Budget, charge, evaluation
>>> with evaluation(limit=100, name="MAX_WORK") as budget:
...     charge(60, "step one")
...     charge(30, "step two")
...     budget.estimated
90
>>> with evaluation(limit=100, name="MAX_WORK"):
...     charge(60, "step one")
...     charge(60, "step two")
Traceback (most recent call last):
...
chancekit.errors.LimitError: step two needs too much work: about 120 units in all is past ...
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable

from chancekit.errors import LimitError

__all__ = ["CALIBRATION_FACTOR", "UNIT_NS", "Budget", "charge", "check", "count", "current",
           "evaluation", "mul_work", "power_work"]

#: nanoseconds one work unit stands for on the reference machine (docs/performance.md)
UNIT_NS = 20
#: the most the work a step counts may exceed its estimate (tests/test_work_calibration.py)
CALIBRATION_FACTOR = 4

# ---------------------------------------------------------------------------------------
# Every named limit of chancekit, defined here once (a test fails if a ``MAX_*`` constant
# is defined anywhere else); docs/limits.md lists each with what it guards and what to do
# instead, and tests/test_limits.py checks the table against these values.

# -- exact dice (chancekit.dice: the Distribution API, pools and notation alike)
#: the total estimated work of one evaluation (an expression, or one API call), in units
#: of about UNIT_NS: about a second
MAX_WORK = 50_000_000
#: most dice summed by ``n @ die`` / in one notation group ``NdX``
MAX_DICE = 100_000
#: most sides of one die (``dX``, ``d(sides)``) and most listed faces (``d{...}``)
MAX_SIDES = 1_000_000
#: most distinct outcomes of one distribution (estimated before sums and explosions)
MAX_OUTCOMES = 1_000_000
#: outcomes x bits per weight of one distribution, estimated before the work (256 MiB)
MAX_WEIGHT_BITS = 2**31
#: outcome pairs visited by one pairwise combination (``*``, ``/``, ``%``, max, ``==``...)
MAX_PAIRS = 2_000_000
#: bits of one result of a power (``**`` / ``pow`` in dice notation: ``2**99999999``)
MAX_POWER_BITS = 100_000
#: estimated work (units) of the exact moments of one distribution (``dice.stats.shape``:
#: the CLI's summary line, the web's summary row), about half a second; past it they are
#: certified floats instead (docs/limits.md, "Summary statistics"): not a refusal
SHAPE_WORK = 25_000_000
#: ``depth`` of explode and reroll
MAX_EXPLODE_DEPTH = 10_000
#: dice in all the pools of one face-by-face evaluation
MAX_POOL_DICE = 10_000
#: states the pool engines may hold at once (dice left x rule state; multisets of dice)
MAX_POOL_STATES = 500_000
#: characters of one expression of the pool algebra read from text (``chancekit pool
#: expr``, the Pools page: chancekit.dice.mechanics.evaluate_text)
MAX_POOL_TEXT = 1000
#: syntax nodes of one such expression
MAX_POOL_TEXT_NODES = 300
#: outcomes x (bits of the total)^2 of the exact cumulative table (``cumulative()``)
MAX_FRACTION_WORK = 10**12
#: characters of one dice expression
MAX_LENGTH = 2_000
#: nesting depth of one dice expression (a NotationError, "nested too deeply")
MAX_DEPTH = 100
#: dice one ``roll()`` may roll, rerolls and explosions included
MAX_ROLLED = 10_000

# -- AnyDice programs (chancekit.anydice)
#: the total estimated work of one AnyDice program (all its outputs), in units of about
#: UNIT_NS: about 3 s, so that the dice engine's steps, measured at 25-40 ns a unit on the
#: loaded 2-vCPU machine, are refused before AnyDice's own 5 s (issue 31; it was
#: 250_000_000, and mutated programs charged 120-230 M units ran 6-8 s)
MAX_ANYDICE_WORK = 140_000_000
#: the largest "maximum function depth" an AnyDice program may set
MAX_FUNCTION_DEPTH = 1_000
#: the most numbers in one AnyDice sequence (``{1..N}``, ``{X:N}``)
MAX_SEQUENCE = 1_000_000
#: the most outputs one AnyDice program may give (real programs give at most a few
#: hundred, one of 6000 saved programs 1,104; a loop of a million outputs is refused
#: before it starts)
MAX_OUTPUTS = 2_000

# -- certified answers (chancekit.dice.certified; approx=True, issue #31)
#: the most bits of fixed point a certified computation may use: it starts at 128 and
#: tries 512 and 2048 while an output's error bound is past the one asked
MAX_CERTIFIED_BITS = 2048
#: the error bound per outcome a certified answer carries at most unless the caller asks
#: for another (``max_error``): absolute, in probability
CERTIFIED_ERROR = 1e-12

# -- work units of the dice steps (about UNIT_NS each; benchmarks/bench_limits.py)
#: one outcome of a distribution built in Python (a dict entry: about 100 ns)
ENTRY_WORK = 5
#: one pair visited by a pairwise combination (a Python-level step, about 500 ns)
PAIR_WORK = 25
#: one tuple element built or read by the general pool engine (about 160 ns)
TUPLE_WORK = 8
#: one integer outcome mapped by a Python function and merged (``map``, ``-d``, ``d + 3``:
#: about 0.5 us, measured on d999999)
MAP_WORK = 25
#: one integer outcome shifted or negated (``d + 3``, ``-d``: ``Distribution._shifted`` and
#: ``__neg__``, no map and no merge: 70-190 ns an outcome measured, the most for dice of
#: 889 485 outcomes)
SHIFT_WORK = 10
#: one entry of a part in a mixture (scaled, added into the result's dict: 250-450 ns
#: measured on 120 parts of 24,000 entries under load, issue 31; it was ENTRY_WORK, 5, and
#: 212d5 mutated ran 2.5 s of mixtures charged 4 M units)
MIX_ENTRY_WORK = 12
#: one map's own cost beyond its outcomes (the call, the result built and checked: about
#: 4 us; ``T + X`` of one-outcome dice in a loop of 20 000 ran 35 us a round, issue 31)
MAP_CALL_WORK = 200
#: one pair visited by ``/`` or with Fraction outcomes (a Fraction built per pair, and many
#: distinct results to sort: d700 / d690 took 3.2 s, about 335 units a pair)
FRACTION_PAIR_WORK = 350
#: the wide weights of one pair a pairwise combination visits, beyond ``PAIR_WORK``:
#: ``(wa * wb + 2 * (wa + wb)) * WIDE_PAIR_WORK / 20`` units for weights of ``wa`` and ``wb``
#: whole 64-bit words (their product, schoolbook, about 7 ns a word pair; the result built
#: and added, about 14 ns a word). Measured (issue 31, fifth pass) on 40 x 20 000 pairs: 8
#: by 16 000 bits 4.3 us a pair, 2 000 by 2 000 bits 8.5 us, 4 000 by 4 000 24 us; it was
#: uncharged, and ((2d6, 4d12, 2d4)kh2 * 14768d2) visited 546 000 pairs of 14 768-bit
#: weights for 2.9 s charged 20 M units (CPython's Karatsuba past 70 digits makes the
#: widest pairs cheaper than this: 8 000 by 8 000 bits ran 67 us, priced 113)
WIDE_PAIR_WORK = 7
#: one outcome mapped where the outcomes or the results are Fractions (``d999999 / 4``:
#: about 3.5 us quiet, a Fraction built, hashed and sorted; 5-7.4 us with a second job on
#: the other core, issue 31's sixth pass: ``d300000/7``, ``-1e9/d200000``, ``abs(d200000/-7)``
#: read 27-41 ns a unit at 180)
FRACTION_MAP_WORK = 240


def power_work(length: int, span: int, bits: int) -> int:
    """Estimated work (units) of raising a polynomial of ``length`` coefficients to the
    power that gives ``span`` coefficients of at most ``bits`` bits, and of converting
    them to Python ints. It follows flint's own choice (``_fmpz_poly_pow``): J.C.P.
    Miller's recurrence while the input's words are fewer than (3n/2 + 150) / length
    (length x span terms of about 40 ns + 2.5 ns a word of the result), binomial
    coefficients for two, repeated squaring otherwise (words of the result x their log,
    an FFT); then each coefficient is converted (about 0.8 us + 20 ns a word) and a call
    costs about 10 us. Calibrated natively over 170 sums of 2 to 10 000 dice of 2 to 1 000
    faces (``benchmarks/bench_limits.py``, "sums"): 8.5-21 ns a unit past 1 ms (median
    12), the dear end at sums of 50-100 dice of 100 faces; in AnyDice's hang shapes (sums
    of 200-250 dice of 9-11 faces in loops) 25-31 ns under load at the first fit, so its
    recurrence and conversion terms were raised a quarter (issue #31: the old price, span
    x bits x min(length, 150) / 1000, ran 40-145 ns a unit for 20-300 dice of 40-300 faces).

    >>> power_work(6, 5001, 3000) // 1000   # 1000d6: about 8 ms
    671
    """
    words = bits // 64 + 1
    n = (span - 1) // max(1, length - 1)
    convert = span * (40 + words)
    if length > 2 and n >= 5 and -(-bits // (64 * n)) < (3 * n // 2 + 150) // length:
        power = length * span * (16 + words) // 8
    elif length == 2:  # binomial coefficients, each from the one before
        power = span * words // 4
    else:
        size = span * words
        power = size * (4 + size.bit_length() // 2) * _binexp_factor(n) // 64
    return 500 + convert + power


def _binexp_factor(n: int) -> int:
    """64 x the cost of raising to the ``n``-th power by binary exponentiation (flint's,
    left to right: a square a bit, and a product by the base a bit set after the first)
    over its squares alone: each product costs about what the power reached so far
    does, so ``(2n + the prefixes of n ending in a set bit) / 2n``. Measured on sums of
    exploded d20s: 63 dice (six bits set) ran 3.1 times 64 dice's time a unit before
    this factor, 1.3 after (13-22 ns a unit over 45-80 dice). O(log n)."""
    if n < 2:
        return 64
    extra, prefix = 0, 1
    for bit in bin(n)[3:]:
        prefix = 2 * prefix + (bit == "1")
        if bit == "1":
            extra += prefix
    return 64 * (2 * n + extra) // (2 * n)


def mul_work(len_a: int, len_b: int, bits: int) -> int:
    """Estimated work (units) of multiplying two polynomials of ``len_a`` and ``len_b``
    coefficients whose product has ``bits``-bit coefficients (flint: Kronecker
    substitution, an FFT product of integers of (len_a + len_b) x bits bits, 3-5 ns a bit
    measured), plus the conversions (Python ints to flint's and back, about 0.13 us a
    64-bit word, and about 0.8 us a coefficient: built, read, reduced, a dict entry) and
    about 12 us a call. Calibrated over nine shapes from 300 x 300 coefficients of 60 bits
    to 17 278 x 8 598 of 3 541 bits (0.4 ms to 0.7 s): 8-32 ns a unit (issue 31: the
    old price, bits / 6 a coefficient, ran 15-44 ns; small sums were charged nothing).

    >>> mul_work(6, 6, 10)
    1104
    """
    return 600 + (len_a + len_b) * (40 + bits // 4 + 4 * (bits // 64))


_current: contextvars.ContextVar[Budget | None] = contextvars.ContextVar(
    "chancekit_budget", default=None)


def _units(n: int) -> str:
    return f"{n:,}" if n < 10**15 else f"2^{n.bit_length() - 1}"


class Budget:
    """The work budget of one evaluation: ``estimated`` (charged up front) and ``counted``
    (done) units, refused past ``limit``.

    ``refuse(what, units)`` builds the error; the default names the limit and suggests
    fewer or smaller dice. Not shared between threads (each thread's evaluations have
    their own, through a context variable).
    """

    __slots__ = ("counted", "estimated", "limit", "name", "refuse")

    def __init__(self, limit: int, name: str,
                 refuse: Callable[[str, int], LimitError] | None = None) -> None:
        self.limit = limit
        self.name = name
        self.estimated = 0
        self.counted = 0
        self.refuse = refuse

    def charge(self, units: int, what: str) -> None:
        """Charge the estimate of one step, before it starts; refuse past the limit (a
        refused step is not charged, so the caller may try a cheaper way)."""
        after = self.estimated + max(0, int(units))
        if after > self.limit:
            if self.refuse is not None:
                raise self.refuse(what, after)
            raise LimitError(
                f"{what} needs too much work: about {_units(after)} units in all is "
                f"past the limit {self.name} = {self.limit:,} (one unit is about {UNIT_NS} "
                "ns); use fewer or smaller dice", limit=self.name, value=after)
        self.estimated = after

    def count(self, units: int) -> None:
        """Record work actually done (for calibration); a backstop refuses if it runs past
        the limit times :data:`CALIBRATION_FACTOR` (an estimate that was wrong)."""
        self.counted += units
        if self.counted > self.limit * CALIBRATION_FACTOR:
            what = "this evaluation (counted as it runs)"
            if self.refuse is not None:
                raise self.refuse(what, self.counted)
            raise LimitError(
                f"{what} needs too much work: {_units(self.counted)} units done is past "
                f"{CALIBRATION_FACTOR} x the limit {self.name} = {self.limit:,}",
                limit=self.name, value=self.counted)


def current() -> Budget | None:
    """The budget of the evaluation running in this thread/context, if any."""
    return _current.get()


class _Evaluation:
    """The context manager :func:`evaluation` returns (a class: no generator per call)."""

    __slots__ = ("limit", "name", "refuse", "token")

    def __init__(self, limit: int, name: str,
                 refuse: Callable[[str, int], LimitError] | None) -> None:
        self.limit = limit
        self.name = name
        self.refuse = refuse
        self.token: contextvars.Token[Budget | None] | None = None

    def __enter__(self) -> Budget:
        outer = _current.get()
        if outer is not None:
            return outer
        budget = Budget(self.limit, self.name, self.refuse)
        self.token = _current.set(budget)
        return budget

    def __exit__(self, *exc: object) -> None:
        if self.token is not None:
            _current.reset(self.token)
            self.token = None


def evaluation(*, limit: int, name: str,
               refuse: Callable[[str, int], LimitError] | None = None) -> _Evaluation:
    """Open a budget for one evaluation, or join the one already open (an outer call's
    budget is the total: nested calls share it); a context manager giving the budget."""
    return _Evaluation(limit, name, refuse)


class _Fresh(_Evaluation):
    """The context manager :func:`fresh_evaluation` returns: a budget of its own."""

    __slots__ = ()

    def __enter__(self) -> Budget:
        outer = _current.get()
        limit = self.limit if outer is None else outer.limit
        budget = Budget(limit, self.name if outer is None else outer.name, self.refuse)
        self.token = _current.set(budget)
        return budget


def fresh_evaluation(*, limit: int, name: str,
                     refuse: Callable[[str, int], LimitError] | None = None) -> _Evaluation:
    """A budget of its own for a second try after a refusal (the certified answer of
    ``approx=True``): the open budget's limit (``--max-work``), else ``limit``, with
    nothing spent, restored on exit; what the first try spent does not count.

    >>> with evaluation(limit=100, name="MAX_WORK"):
    ...     charge(90, "the first try")
    ...     with fresh_evaluation(limit=10, name="MAX_WORK") as second:
    ...         charge(80, "the second try")
    ...     second.limit, current().estimated
    (100, 90)
    """
    return _Fresh(limit, name, refuse)


def charge(units: int, what: str, *, limit: int | None = None, name: str | None = None) -> None:
    """Charge an up-front estimate to the open budget; with none open, check it alone
    against ``limit`` (named ``name``)."""
    budget = _current.get()
    if budget is not None:
        budget.charge(units, what)
    elif limit is not None:
        Budget(limit, name or "MAX_WORK").charge(units, what)


def work_limit() -> int:
    """The work a step may still take: what is left of the open budget (``--max-work``
    raises or lowers it), else :data:`MAX_WORK`. For steps that refuse with their own
    message before charging.

    >>> work_limit() == MAX_WORK
    True
    >>> with evaluation(limit=10**12, name="MAX_WORK"):
    ...     charge(10**6, "a step")
    ...     work_limit()
    999999000000
    """
    budget = _current.get()
    return MAX_WORK if budget is None else budget.limit - budget.estimated


def refuse_past_budget(units: int, what: str, hint: str) -> None:
    """Refuse up front, with a message of its own, a step of ``units`` past
    :func:`work_limit`: "``what`` needs about N units of work, more than the MAX_WORK
    budget (M); ``hint``". The caller charges and counts the step when it goes ahead.

    >>> refuse_past_budget(10, "a small step", "use fewer dice")
    >>> try:
    ...     refuse_past_budget(10**9, "keeping 9 of 99 dice", "use fewer dice")
    ... except LimitError as e:
    ...     print(e.limit, str(e).split(", more")[0])
    MAX_WORK keeping 9 of 99 dice needs about 1,000,000,000 units of work
    """
    most = work_limit()
    if units > most:
        raise LimitError(f"{what} needs about {units:,} units of work, more than the "
                         f"MAX_WORK budget ({most:,}); {hint}", limit="MAX_WORK", value=units)


def check(units: int, what: str) -> None:
    """Refuse now if the open budget cannot also pay ``units`` that a *later* step will
    charge (a look-ahead: nothing is charged). Used where cheap work comes first and the
    step it feeds would be refused anyway: the refusal then comes before the cheap work."""
    budget = _current.get()
    if budget is not None and budget.estimated + max(0, int(units)) > budget.limit:
        budget.charge(units, what)  # raises: the same message as the step would give


def count(units: int) -> None:
    """Record work actually done in the open budget (no-op with none open)."""
    budget = _current.get()
    if budget is not None:
        budget.count(units)

# -- fairness systems (chancekit.fair)

#: the largest number of states one draw's layer may hold in an exact evaluation
MAX_STATES = 300_000
#: the most states x values x candidates one layer's float64 arrays may hold (160 MB each)
MAX_LAYER_CELLS = 20_000_000
#: the most trials x (samples + values) cells one Monte Carlo run may hold: its arrays take
#: about 50 bytes per cell, so this is about 500 MB
MAX_MC_CELLS = 10_000_000
#: the most values (n) a system may have
MAX_VALUES = 1_000_000
#: the most rolls per draw of :class:`HistoryReroll` (``tries``)
MAX_REROLL_TRIES = 10_000
#: the smallest success rate :func:`prd_constant` (and so :class:`PRD`) accepts: solving
#: for the constant costs O(1/p**2) steps (about a second at 0.001, minutes at 1e-5)
MIN_PRD_P = 0.001
#: the most estimated work units (about 25 ns each) one evaluation or tuning may take:
#: about a second
MAX_FAIR_WORK = 40_000_000

# -- Markov chains (chancekit.markov)

#: the most states one chain may reach from its start (counted as ``step`` is called): a
#: memory ceiling (about 250 MB of states, index and successor lists), not lifted by
#: ``max_work``; the work of exploring is priced (EXPLORE_STATE_WORK) and lifted with it
MAX_MARKOV_STATES = 1_000_000
#: the most transitions (self-loops aside) of one explored chain (counted as it is
#: explored): a memory ceiling (about 50 bytes each), not lifted by ``max_work``
MAX_MARKOV_TRANSITIONS = 10_000_000
# (a strongly connected component's dense solve is priced as work with its k**2 cells:
# chancekit.markov.chain.block_note: the fixed ceiling of 2 000 states, MAX_MARKOV_BLOCK,
# is gone, issue 31)
#: the most steps one ``steps(upto=..., tail=...)`` call walks
MAX_MARKOV_STEPS = 100_000
#: the most estimated work units (about UNIT_NS each) of one chain's solve: about 3 s
MAX_MARKOV_WORK = 150_000_000
#: work units of one transition in a pass (one or two exact fmpq operations, about 0.8 us)
MARKOV_EDGE_WORK = 40
#: work units of one transition in the mean-and-variance pass (four fmpq operations)
MARKOV_MOMENT_WORK = 100
#: work units of one transition in the integer passes of acyclic chains (plus one a
#: 64-bit word of the common denominator)
MARKOV_INT_WORK = 25
#: work units of one state explored: a call of the user's ``step`` building its result
#: (a ``Distribution.map`` over a die is several us), the state stored and indexed
EXPLORE_STATE_WORK = 250
#: work units of one transition explored: the step built it, the engine looks its state up
#: (about 0.5 us with a dict built in Python; measured on the 100 v 100 HP race)
EXPLORE_EDGE_WORK = 25

# -- random streams (chancekit.rng)

#: characters of one stream id or child name
MAX_ID_LENGTH = 1024
#: deepest nesting of ``Streams.child`` (and of ``children`` in a saved file)
MAX_CHILD_DEPTH = 100
#: elements of one bulk PCG32 array (``u32_array``, ``random_array``, ``randbelow_array``:
#: 4 or 8 GiB) and 32-bit words of one ``getrandbits`` (2**35 bits)
MAX_BULK = 2**30

# -- the command line (chancekit.cli)

#: an integer --seed/--stream/--bound has at most this many decimal digits in size
#: (the JSON output writes it as a number; chancekit.Streams takes larger seeds)
MAX_INT_DIGITS = 4300
#: (the same bound as a number)
MAX_INT = 10**MAX_INT_DIGITS
#: largest --bound: draws are printed in decimal, so they stay far below Python's
#: 4300-digit conversion limit (2**4096 has 1234 digits)
MAX_BOUND_BITS = 4096
#: the most ``--max-work`` may ask: 10**15 units (about 230 days at 20 ns a unit)
MAX_WORK_OPTION = 10**15
#: bytes of an AnyDice program file that ``chancekit anydice FILE`` reads (saved programs
#: are a few kB; a bigger file is refused before it is read whole)
MAX_PROGRAM_BYTES = 1_000_000
#: rows of a distribution ``chancekit dist`` shows by default (table, --json, --csv): the
#: most likely; ``--all`` shows every row (-9d59144 has 209,000)
MAX_SHOWN_ROWS = 2000

# -- the web calculator (chancekit.web): input bounds

MAX_BODY = 64 * 1024          #: bytes in a request body
MAX_EXPRESSIONS = 12          #: expressions per /api/dist request
MAX_EXPRESSION_CHARS = 1000   #: characters per expression
MAX_LABEL_CHARS = 100
MAX_VARIABLES = 100           #: names in the 'variables' of one /api/dist request
MAX_LOOT_CHARS = 20_000
MAX_SYSTEMS = 12
MAX_SPEC_CHARS = 200
MAX_ROLLS = 100
MAX_STREAMS = 8
MAX_JOBS = 4                  #: tuning jobs running or waiting at once
#: characters of an AnyDice program sent to /api/anydice (the body limit is the other bound)
MAX_PROGRAM_CHARS = 60_000
#: most rolls of one line of a Monte Carlo estimate (the time budget usually stops first)
MAX_ESTIMATE_SAMPLES = 1_000_000
#: at most this many rows per series are sent (the rest are counted in ``hidden``)
MAX_ROWS = 5000
#: an exact fraction longer than this is sent as null (the float stays)
MAX_FRACTION_CHARS = 80
#: dice in a usage-die ladder on the Markov page
MAX_LADDER = 100

# -- samplers (chancekit.sampling)

#: ``parse_weights``: a weight's decimal exponent and its count of digits are limited to
#: this, so ``"1e999999999"`` is refused at once instead of building a billion-digit number
MAX_WEIGHT_DIGITS = 1000
#: the most labels (outcomes, categories) one weights argument may have
MAX_LABELS = 1_000_000
#: the most bits of the exact integer weights, estimated as labels x bits of the common
#: denominator (128 MiB): weights like 1/p for thousands of different primes p blow up
MAX_TABLE_BITS = 2**30
#: the most grid cells (row_die x check_die, or ``units`` of :func:`round_to_grid`): the
#: optimal rounding is O(cells log k), about a second at this size
MAX_TABLE_CELLS = 100_000
#: the most bits of a tree's total (its weights over their common denominator): a draw
#: is one ``randbelow(total)``, whose cost grows with the square of the words it reads
#: (2**16 bits: about 5 ms a draw; ``{"a": 2**(10**7), "b": 1}`` took minutes)
MAX_TOTAL_BITS = 2**16
#: the default ``max_tries`` of the streak filters: re-draws in a row before giving up
#: (counted as they happen: the sampler is unknown)
MAX_TRIES = 100_000


# -- planning: copies, audits, loot bags (issue #30) ------------------------------------
# chancekit/fair/audit.py
#: the most pulls one audit takes (the exact tails are integers of about pulls x 10 bits)
MAX_AUDIT_PULLS = 100_000
#: the most count vectors the exact multinomial test enumerates
MAX_MULTINOMIAL_CELLS = 2_000_000
#: the most transitions x pulls the pull-log pass takes (each a polynomial operation on
#: coefficients of about pulls x 10 bits: a 90-pity banner's 700-pull log is 126 000
#: steps, about 1 s; the work grows as pulls**2)
MAX_AUDIT_STEPS = 200_000
# chancekit/markov/planning.py
#: the most copies one question may ask for
MAX_COPIES = 1_000
#: the most items :func:`all_of` takes (inclusion-exclusion: 2**items terms)
MAX_WANTED = 16
# chancekit/sampling/bag.py
#: the most (group counts) states the chain of one bag may hold
MAX_BAG_STATES = 200_000
#: the most distinct hands (outcomes) one bag distribution may have
MAX_BAG_HANDS = 1_000_000
# chancekit/cli/_audit.py
#: the largest log file read (bytes)
MAX_LOG_BYTES = 20 * 1024 * 1024
