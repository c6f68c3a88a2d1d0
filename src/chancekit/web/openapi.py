"""The OpenAPI 3.1 description of the JSON API (served at ``/api/openapi.json`` and
rendered as plain HTML at ``/docs``: no Swagger UI, nothing from a CDN)."""

from __future__ import annotations

from typing import Any

from chancekit import __version__
from chancekit.dice.notation import DIALECTS


def _err(description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


_ERRORS = {
    "400": _err("malformed request: not JSON, a wrong type, a value out of range"),
    "403": _err("a foreign Host (not an IP address, localhost or an --allow-host name) or "
                "a foreign Origin: only the app's own pages may use it"),
    "413": _err("request body larger than 64 KiB"),
    "415": _err("the body is not sent as Content-Type: application/json"),
    "422": _err("the library refused the input: NotationError (problem, text, column), "
                "LimitError (limit: a named work limit, or time_limit), InvalidValueError"),
    "503": _err("every worker busy for too long; try again"),
}


def _post(summary: str, description: str, example: dict[str, Any],
          props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"post": {
        "summary": summary, "description": description,
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": {"type": "object", "properties": {**props, "max_work": {
                "type": "integer", "minimum": 1, "maximum": 10**15,
                "description": "the work budget of this request in units of about 20 ns "
                               "(default 50000000, chancekit.limits.MAX_WORK), as the "
                               "CLI's --max-work"}}, "required": required},
            "example": example}}},
        "responses": {"200": {"description": "the result (JSON)"}, **_ERRORS}}}


#: the ``approx`` flag of /api/dist and /api/anydice (issue #31, item 7)
APPROX: dict[str, Any] = {
    "type": "boolean",
    "description": "true: where the exact answer is refused for its work (huge weights; "
    "the refusal then carries \"approx\": true), answer with proven bounds: the series "
    "says \"certified\": true, \"exact\": false and \"max_error\" (1e-12 at most), "
    "each row adds p_low, p_high and error (chancekit.dice.certified); such a series "
    "follows #/components/schemas/CertifiedSeries"}


_P = {"type": "number", "minimum": 0, "maximum": 1}
_NULL = {"type": "null"}

#: one series of /api/dist or /api/anydice answered with ``approx: true`` past the exact
#: budget (issue #31, item 7; the schema tests/web/test_certified_pages.py checks live
#: answers against): never exact, every row with its proven bounds
CERTIFIED_SERIES: dict[str, Any] = {
    "type": "object",
    "description": "a certified series: every probability a proven interval "
    "(chancekit.dice.certified), never exact. p is the interval's midpoint (nearest "
    "float), p_low a float at most the exact probability, p_high a float at least it, "
    "error the interval's half-width rounded up; no exact fractions (p_exact, ge_exact, "
    "le_exact, mean, sd, skewness and kurtosis null); mean_low/mean_high bound the mean",
    "required": ["certified", "exact", "max_error", "rows", "outcomes", "hidden",
                 "mean_low", "mean_high"],
    "properties": {
        "certified": {"const": True}, "exact": {"const": False},
        "max_error": {"type": "number", "minimum": 0, "maximum": 1e-12},
        "total_weight_bits": _NULL, "mean": _NULL, "sd": _NULL, "kurtosis_exact": _NULL,
        "mean_low": {"type": ["number", "null"]}, "mean_high": {"type": ["number", "null"]},
        "outcomes": {"type": "integer", "minimum": 1},
        "hidden": {"type": "integer", "minimum": 0},
        "rows": {"type": "array", "items": {
            "type": "object",
            "required": ["outcome", "p", "p_low", "p_high", "error", "ge", "le", "p_exact"],
            "properties": {"p": _P, "p_low": _P, "p_high": _P, "ge": _P, "le": _P,
                           "error": {"type": "number", "minimum": 0},
                           "p_exact": _NULL, "ge_exact": _NULL, "le_exact": _NULL}}}}}


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document."""
    s, i, n = {"type": "string"}, {"type": "integer"}, {"type": "number"}
    D = {"enum": list(DIALECTS), "default": "avrae"}
    return {
        "openapi": "3.1.0",
        "info": {"title": "chancekit web API", "version": __version__,
                 "description": "Exact dice distributions, tabletop tables, fairness "
                 "metrics and seeded rolls. Every computation runs in a worker process with "
                 "a time limit and stops when the client disconnects. Errors: "
                 '{"error": {"type", "message", ...}}.'},
        "paths": {
            "/api/dist": _post(
                "exact distributions",
                "Each expression's exact distribution: rows with outcome, probability, at "
                "least, at most (floats, and exact fractions when short), plus mean (exact), "
                "sd, skewness, excess kurtosis, min, max and quantiles; 'comparisons': the "
                "Kolmogorov-Smirnov and total variation distance of each later expression "
                "from the first. At most 12 expressions of 1000 characters. "
                "'dialect' (avrae, roll20 or foundry; avrae when left out) says how the "
                "notation is read; each series' 'notes' say when another dialect reads it "
                "differently (chancekit.dice.notation.ambiguities). Errors carry 'index' "
                "(which expression). 'variables' (an object of name -> whole number or "
                "formula) fills Foundry's @name and Roll20's @{name} and ?{name|...}.",
                {"expressions": [{"label": "attack", "text": "1d20+5"}, {"text": "4d6kh3"}]},
                {"expressions": {"type": "array", "maxItems": 12, "items": {"anyOf": [s, {
                    "type": "object", "properties": {"label": s, "text": s},
                    "required": ["text"]}]}},
                 "dialect": D, "approx": APPROX,
                 "variables": {"type": "object", "maxProperties": 100,
                               "additionalProperties": {"anyOf": [{"type": "integer"}, s]}}},
                ["expressions"]),
            "/api/anydice": _post(
                "run an AnyDice program",
                "Runs a program in AnyDice's language (chancekit.anydice.run_program, "
                "exactly): one series per `output`, in order, each as /api/dist's series "
                "(label = the output's name, rows, exact fractions when short, mean, sd, "
                "skewness, kurtosis, quantiles), 'comparisons' (each later output's KS and "
                "total variation distance from the first) and 'warnings' (where AnyDice's "
                "own answer is known to differ). At most 60 000 characters. A program error "
                "is a 422 whose error adds 'line', 'column' (1-based), 'token' and 'source' "
                "(the text of that line); work past a limit is a 422 LimitError.",
                {"program": "output [highest 3 of 4d6] named \"stats\""},
                {"program": {"type": "string", "maxLength": 60000}, "approx": APPROX},
                ["program"]),
            "/api/markov": _post(
                "processes that run until something happens (exact Markov chains)",
                "chancekit.markov's built-in processes, exactly: 'kind' usage-die ('ladder' "
                "such as \"12,10,8,6,4\" or \"d12 d10 1d8\", 'down' the faces that step it "
                "down, default \"1,2\"), race ('hp' and 'damage' a round; with 'hp2' and "
                "'damage2' two sides, each 'damage' what that side deals, 'order' "
                "simultaneous or alternating) or first-success (a fairness 'system' spec "
                "such as prd:0.25, pity:0.1,10 or gacha:0.006,74,0.06,90, and the 'value' "
                "waited for: true, or featured for gacha) or until ('die' notation and "
                "'sequence', e.g. \"6,6\": rolls until the last rolls are it). Answers the "
                "exact 'mean' and "
                "'variance' of the count (text when short, and floats), 'sd', 'rows' (count, "
                "probability, at least, at most; exact fractions when short) up to "
                "'shown_upto' ('upto' if given, else until at most 1e-6 is left), 'tail' "
                "(the exact probability of a larger count, not in the rows), 'complete', and "
                "'winner' for a two-sided race, 'notes'. A refused input is a 422 whose "
                "error adds "
                "'field' and 'where'.",
                {"kind": "race", "hp": 30, "damage": "2d6", "hp2": 25, "damage2": "1d8+2",
                 "order": "alternating"},
                {"kind": {"enum": ["usage-die", "race", "first-success", "until"]}, "upto": i,
                 "ladder": s, "down": s, "hp": i, "damage": s, "hp2": i, "damage2": s,
                 "order": {"enum": ["simultaneous", "alternating"]}, "system": s,
                 "value": s, "die": s, "sequence": s}, ["kind"]),
            "/api/gacha": _post(
                "plan pulls on a banner: copies, pity state, budget (exact)",
                "chancekit.markov.planning.plan: the pulls until 1..'copies' (at most 10) "
                "copies of 'value' (default featured, or true) on the fairness 'system' "
                "spec (gacha:0.006,74,0.06,90; fate=M and chosen=C for weapon banners), "
                "from 'pity' pulls since the last rare, 'guaranteed' (a lost 50/50) and "
                "'misses' (fate points): per copy count the mean, sd, median, p90, p99, "
                "the most pulls, P(within 'pulls'), P(within the pulls 'budget' buys at "
                "'price' less 'refund' a pull) and the mean cost; 'curve': P(k copies by "
                "pull n) for each k at the listed 'pulls' (at most about 400 points). "
                "'refund_per' ({value: amount}, e.g. {\"featured\": 40, \"off-banner\": "
                "40}): currency given back each time a value is drawn (a refund per rare); "
                "the mean cost and P(within budget) are then exact under "
                "chancekit.markov.spend and 'affordable' is null.",
                {"system": "gacha:0.006,74,0.06,90", "copies": 3, "pity": 37,
                 "guaranteed": True, "pulls": 160},
                {"system": s, "value": s, "copies": i, "pity": i,
                 "guaranteed": {"type": "boolean"}, "misses": i, "pulls": i,
                 "price": {"type": "number"}, "refund": {"type": "number"},
                 "budget": {"type": "number"},
                 "refund_per": {"type": "object",
                                "additionalProperties": {"type": "number"}}}, ["system"]),
            "/api/estimate": _post(
                "a Monte Carlo estimate (not exact)",
                "For expressions the exact engine refuses: 'samples' rolls (default 10000) "
                "of each line with chancekit.roll from PCG32(seed, line), stopped early "
                "after half the server's time limit. Each outcome's frequency with a 95 % "
                "Wilson interval (lo, hi) and count; mean with a 95 % interval (mean_lo, "
                "mean_hi), sd, quantiles; 'samples' says how many rolls were made, "
                "'complete' whether all that were asked. The same seed and samples give "
                "the same answer; without a seed one is drawn and reported.",
                {"expressions": ["100d100kh50"], "samples": 10000, "seed": 7},
                {"expressions": {"type": "array", "maxItems": 12}, "dialect": D,
                 "samples": i, "seed": i}, ["expressions"]),
            "/api/table": _post(
                "a two-dice tabletop table",
                "TabletopTable.build from a notation or a loot list (name=weight lines): "
                "rows, target vs realised (exact), the accuracy report, the rule, and the "
                "sheet as md, csv, text and html.",
                {"source": "notation", "notation": "3d6", "row_die": 20, "check_die": 20},
                {"source": {"enum": ["notation", "loot"]}, "notation": s, "loot": s,
                 "title": s, "row_die": i, "check_die": i, "dialect": D,
                 "two_stage": {"type": "boolean"}}, []),
            "/api/pool": _post(
                "pool rules, exactly",
                "The exact distribution of a pool rule of chancekit.dice: 'largest-set' or "
                "'straight' of 'dice' (\"5d6 2d8\"), 'nco' (Neon City Overdrive: 'action' "
                "vs 'danger' d6), 'risk' ('action' attackers vs 'danger' defenders), "
                "'genesys' (the net symbols of 'pool', e.g. \"2A1P vs 2D\", with 'success' "
                "and 'at_least_one' of each symbol). One series, as /api/dist sends it. "
                "The pool algebra (docs/pools.md): 'cancel' ('dice' successes, >= "
                "'success', left after 'against' cancels them; 'match' any, beat or equal), "
                "'face-to-face' ('dice' vs 'against': the successes of each), 'sets' "
                "(largest matching set, 'wild' faces such as \"9,10\"), 'straights', "
                "'poker', 'risk' with 'ties': attacker, and 'expr' ('expression' over "
                "named 'pools', e.g. {\"a\": \"3d6\", \"b\": \"2d6\"}).",
                {"kind": "largest-set", "dice": "5d6"},
                {"kind": {"enum": ["largest-set", "straight", "nco", "risk", "genesys",
                                   "cancel", "face-to-face", "sets", "straights", "poker",
                                   "expr"]},
                 "dice": s, "action": i, "danger": i, "pool": s,
                 "against": s, "success": i, "match": {"enum": ["any", "beat", "equal"]},
                 "ties": {"enum": ["defender", "attacker"]}, "wild": s, "expression": s,
                 "pools": {"type": "object", "additionalProperties": s}}, ["kind"]),
            "/api/fairness": _post(
                "fairness metrics over a match",
                "chancekit.fair.evaluate of each system spec (e.g. deck, "
                "generalized-deck:1,6, dynamic-dice:0.355, prd:0.25): summary metrics and "
                "per-draw series (entropy, outcome_variance, guessability, discrepancy).",
                {"systems": ["deck", "dynamic-dice:0.355"], "values": 6, "samples": 25,
                 "method": "exact"},
                {"systems": {"type": "array", "items": s, "maxItems": 12}, "values": i,
                 "samples": i, "method": {"enum": ["exact", "montecarlo"]}, "trials": i,
                 "seed": i}, ["systems"]),
            "/api/tune": _post(
                "start a tuning job",
                "Starts chancekit.fair.tune in the background; answers 202 with a job id. "
                "Poll GET /api/jobs/{job} for progress (done/total) and the result; "
                "DELETE it to stop. At most 4 jobs at once (429).",
                {"values": 6, "samples": 25, "min_entropy": 0.9,
                 "systems": ["generalized-deck", "dynamic-dice"]},
                {"values": i, "samples": i, "min_entropy": n,
                 "systems": {"type": "array", "items": {
                     "enum": ["dice", "deck", "generalized-deck", "dynamic-dice"]}},
                 "floor": {"enum": ["average", "every"]}, "top": i}, []),
            "/api/jobs/{job}": {
                "get": {"summary": "a job's state", "description": "state (queued, running, "
                        "done, error, cancelled), done/total progress, and the result when "
                        "done. A job nobody polls for 30 s is stopped.",
                        "responses": {"200": {"description": "the job"},
                                      "404": _err("no such job")}},
                "delete": {"summary": "stop a job", "description": "Stops the job (its "
                           "worker process is killed and replaced).",
                           "responses": {"200": {"description": "the job, cancelled"},
                                         "404": _err("no such job")}}},
            "/api/roll": _post(
                "seeded rolls",
                "chancekit.roll with PCG32(seed), or Streams(seed)[stream] for a named "
                "stream; 'streams' lists names for the named-stream demo. Without a seed "
                "one is drawn and reported.",
                {"text": "4d6kh3", "seed": 2026, "n": 6, "streams": ["chargen", "loot"]},
                {"text": s, "seed": {"type": ["integer", "string", "null"]},
                 "stream": {"type": ["string", "null"]}, "n": i,
                 "streams": {"type": "array", "items": s}, "demo_n": i, "dialect": D},
                ["text"]),
            "/api/version": {"get": {"summary": "version and limits",
                                     "description": "chancekit's version, the dialects "
                                     "the notation is read in, and the input limits.",
                                     "responses": {"200": {"description": "version"}}}},
            "/api/status": {"get": {"summary": "server status",
                                    "description": "workers, busy workers, workers killed "
                                    "(cancelled or over time), cache hits, jobs.",
                                    "responses": {"200": {"description": "status"}}}},
        },
        "components": {"schemas": {"CertifiedSeries": CERTIFIED_SERIES, "Error": {
            "type": "object", "required": ["error"],
            "properties": {"error": {"type": "object", "required": ["type", "message"],
                                     "properties": {"type": s, "message": s, "problem": s,
                                                    "text": s, "column": i, "limit": s,
                                                    "index": i, "detail": s,
                                                    "field": s, "where": s,
                                                    "notes": {"type": "array", "items": s},
                                                    "partial": {"type": "array"}}}}}}},
    }
