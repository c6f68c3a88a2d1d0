"""``POST /api/anydice``: run an AnyDice program in a worker; every output as a series.

The request is ``{"program": TEXT}`` (at most
:data:`~chancekit.limits.MAX_PROGRAM_CHARS` characters).
:func:`parse_anydice` checks it on the event loop; :func:`anydice_job` runs in a worker
process of :mod:`chancekit.web.pool` (time limit, killed on disconnect) and answers as
``/api/dist`` does: one ``series`` per ``output`` (rows, exact fractions when short, mean,
sd, skewness, kurtosis, quantiles: :func:`chancekit.web.compute.describe`), each later
output's distance from the first (``comparisons``), plus the program's ``warnings``. An
error of the program is a 422 whose body adds ``line``, ``column``, ``token`` and
``source`` (the program's line) so the page can place it.
Only the public API is used: :func:`chancekit.anydice.run_program`.

>>> parse_anydice({"program": "output 3d6"})
{'program': 'output 3d6'}
"""

from __future__ import annotations

from typing import Any

from chancekit.errors import ChancekitError
from chancekit.limits import MAX_PROGRAM_CHARS

#: the series of an output of the empty die ``d{}``: no rows, no figures
_EMPTY = {"rows": [], "outcomes": 0, "hidden": 0, "total_weight_bits": 0, "exact": True,
          "mean": None, "mean_float": None, "sd": None, "skewness": None, "kurtosis": None,
          "kurtosis_exact": None, "min": None, "max": None, "quantiles": {}}


def parse_anydice(data: dict[str, Any]) -> dict[str, Any]:
    """The job's request from the JSON body: the program as text, line ends normalised."""
    from chancekit.web.app import ApiError, get_str

    program = get_str(data, "program", max_len=MAX_PROGRAM_CHARS)
    if not program.strip():
        raise ApiError(400, "'program' is empty: write an AnyDice program, e.g. "
                       "output 3d6", field="program")
    if "\0" in program:
        raise ApiError(400, "'program' holds a NUL character: give an AnyDice program as "
                       "text", field="program")
    return {"program": program.replace("\r\n", "\n").replace("\r", "\n")}


def anydice_job(req: dict[str, Any], progress: Any) -> dict[str, Any]:
    """Run ``req["program"]``; one series per output (as ``/api/dist``'s series)."""
    import time

    from chancekit.anydice import run_program
    from chancekit.web.compute import JobError, compare, describe, error_body

    program = req["program"]
    t0 = time.perf_counter()
    try:
        result = run_program(program)
        outputs = list(result.outputs)
        series = []
        for i, (label, d) in enumerate(outputs):
            s = describe(d) if len(d) else dict(_EMPTY)
            s.update(label=str(label), text=str(label), index=i)
            series.append(s)
            progress(i + 1, len(outputs))
        # each later output's distance from the first, as /api/dist (outputs of d{} have none)
        first = outputs[0][1] if outputs and len(outputs[0][1]) else None
        comparisons = [compare(first, d, 0, i) for i, (_, d) in enumerate(outputs)
                       if i and first is not None and len(d)]
    except ChancekitError as exc:
        raise JobError(422, error_body(exc, **_where(exc, program))) from None
    return {"series": series, "comparisons": comparisons,
            "warnings": [str(w) for w in result.warnings], "outputs": len(series),
            "run_ms": round(1000 * (time.perf_counter() - t0), 3)}


def _where(exc: BaseException, program: str) -> dict[str, Any]:
    """Where in the program an error is: ``line`` and ``column`` (1-based; null when the
    error has no place, e.g. a work limit), ``token``, and ``source``: the text of that
    line (at most 500 characters)."""
    line = getattr(exc, "line", None)
    column = getattr(exc, "column", None)
    line = line if isinstance(line, int) and not isinstance(line, bool) else None
    column = column if isinstance(column, int) and not isinstance(column, bool) else None
    token = getattr(exc, "token", None)
    source = None
    if line is not None:
        lines = program.split("\n")
        if 1 <= line <= len(lines):
            source = lines[line - 1][:500]
    return {"line": line, "column": column,
            "token": None if token is None else str(token)[:200], "source": source}
