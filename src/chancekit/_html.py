"""Rich display in Jupyter (private): ``_repr_html_`` for distributions, tabletop tables and
tuning results. Self-contained HTML — a table plus an inline SVG chart — with no scripts,
styles sheets or any other network resource.

>>> print(svg_bars(["a", "b"], [1.0, 0.5], width=100, height=40)[:40])
<svg xmlns="http://www.w3.org/2000/svg"
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from chancekit.errors import quote


def escape(text: str) -> str:
    """``html.escape``, imported on first use: ``label`` is needed by every cold
    ``dist()``, the HTML only in a notebook."""
    from html import escape as html_escape

    return html_escape(text)


_PALETTE = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860")
_TABLE_ROWS = 60  # longer tables show the most likely rows and say how many are hidden


def svg_bars(labels: Sequence[Any], values: Sequence[float], *, width: int = 480,
             height: int = 160, series: Sequence[Sequence[float]] = (),
             names: Sequence[str] = ()) -> str:
    """A bar chart as inline SVG: one bar per label (a second series side by side)."""
    all_series = [list(values), *[list(s) for s in series]]
    top = max((v for s in all_series for v in s), default=0.0) or 1.0
    n = max(len(labels), 1)
    slot = (width - 20) / n
    bar_w = max(slot * 0.8 / len(all_series), 0.5)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 20}" '
             f'viewBox="0 0 {width} {height + 20}" role="img">']
    for k, s in enumerate(all_series):
        colour = _PALETTE[k % len(_PALETTE)]
        for i, v in enumerate(s):
            h = (height - 10) * v / top
            x = 10 + i * slot + k * bar_w
            title = escape(f"{labels[i]}: {v:.4g}" + (f" ({names[k]})" if k < len(names) else ""))
            parts.append(f'<rect x="{x:.2f}" y="{height - h:.2f}" width="{bar_w:.2f}" '
                         f'height="{h:.2f}" fill="{colour}"><title>{title}</title></rect>')
    step = max(1, n // 12)
    for i in range(0, len(labels), step):
        x = 10 + i * slot + slot * 0.4
        parts.append(f'<text x="{x:.2f}" y="{height + 14}" font-size="10" '
                     f'text-anchor="middle">{escape(str(labels[i]))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def svg_lines(series: Mapping[str, Sequence[tuple[float, float]]], *, width: int = 480,
              height: int = 200, x_label: str = "", y_label: str = "") -> str:
    """A line chart as inline SVG: one polyline per named series of (x, y) points."""
    pts = [p for s in series.values() for p in s]
    if not pts:
        return f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"></svg>'
    x0, x1 = min(p[0] for p in pts), max(p[0] for p in pts)
    y0, y1 = min(p[1] for p in pts), max(p[1] for p in pts)
    sx = (width - 60) / ((x1 - x0) or 1)
    sy = (height - 40) / ((y1 - y0) or 1)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img">']
    for k, (name, s) in enumerate(series.items()):
        colour = _PALETTE[k % len(_PALETTE)]
        coords = " ".join(f"{40 + (x - x0) * sx:.2f},{height - 25 - (y - y0) * sy:.2f}"
                          for x, y in sorted(s))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" '
                     f'points="{coords}"><title>{escape(name)}</title></polyline>')
        parts.append(f'<text x="{width - 5}" y="{14 + 12 * k}" font-size="10" '
                     f'text-anchor="end" fill="{colour}">{escape(name)}</text>')
    parts.append(f'<text x="{width / 2:.0f}" y="{height - 5}" font-size="10" '
                 f'text-anchor="middle">{escape(x_label)} ({x0:.3g} to {x1:.3g})</text>')
    parts.append(f'<text x="5" y="12" font-size="10">{escape(y_label)} '
                 f'({y0:.3g} to {y1:.3g})</text>')
    parts.append("</svg>")
    return "".join(parts)


def html_table(headers: Sequence[str], rows: Iterable[Sequence[Any]],
               caption: str | None = None) -> str:
    head = "".join(f"<th>{escape(str(h))}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>"
                   for row in rows)
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _pct(p: Fraction | float) -> str:
    return f"{100 * float(p):.4f}%"


def label(x: Any) -> str:
    """``str(x)`` for a table, never failing: ints past 60 digits summarised (quote). The
    one home of an outcome's table text (``Distribution.__str__``, the CLI, the HTML).

    >>> label(10**200)
    'an integer of 201 digits (1000000000...0000000000)'
    >>> label(Fraction(1, 3))
    '1/3'
    """
    if isinstance(x, int) and not isinstance(x, bool):
        return str(x) if x.bit_length() <= 190 else quote(x)
    if isinstance(x, Fraction):
        return f"{label(x.numerator)}/{label(x.denominator)}" if x.denominator != 1 \
            else label(x.numerator)
    try:
        return str(x)
    except Exception:
        return quote(x)


def distribution_html(dist: Any, title: str = "") -> str:
    """A distribution: outcome, probability, at least, at most, and a bar chart. Floats
    from the exact weights (``cumulative_float``): quick for 10000d6 too."""
    table = dist.cumulative_float()  # no Fraction per row (10000d6: 0.3 s, not minutes)
    labels = [label(x) for x, _, _, _ in table]  # never fails on huge ints
    probs = [p for _, p, _, _ in table]
    rows = [(s, _pct(p), _pct(al), _pct(am))
            for s, (_, p, al, am) in zip(labels, table, strict=True)]
    note = ""
    if len(rows) > _TABLE_ROWS:
        keep = set(sorted(range(len(rows)), key=probs.__getitem__, reverse=True)[:_TABLE_ROWS])
        note = f"<p>{len(rows) - _TABLE_ROWS} less likely outcomes not listed.</p>"
        rows = [r for i, r in enumerate(rows) if i in keep]
    try:
        mean, variance = dist._moments()
        stats = f"<p>mean {float(mean):.4f}, sd {float(variance) ** 0.5:.4f}</p>"
    except (TypeError, ValueError, ArithmeticError):
        stats = ""
    chart = svg_bars(labels, probs)
    return (f'<div class="chancekit">{chart}'
            f'{html_table(["outcome", "probability", "at least", "at most"], rows, title)}'
            f"{note}{stats}</div>")


def tabletop_html(table: Any) -> str:
    """A tabletop table: its rows, the rule, the accuracy line, target vs realised bars."""
    rows = [(r.face, "" if r.outcome is None else r.outcome,
             "-" if not r.threshold else r.threshold, "-" if r.alias is None else r.alias)
            for r in table.rows]
    headers = [f"d{table.row_die}", "outcome", f"d{table.check_die} ≤", "else"]
    realized = table.realized()
    labels = list(table.target)
    chart = svg_bars([str(x) for x in labels], [float(table.target[x]) for x in labels],
                     series=[[float(realized.probability(x)) for x in labels]],
                     names=["target", "realised"])
    return (f'<div class="chancekit">{html_table(headers, rows, table.title or None)}'
            f"<p>{escape(table.rule())}</p><p>{escape(str(table.report()))}</p>"
            f"{chart}</div>")


def tune_html(result: Any) -> str:
    """A tuning result: each family's winners, and outcome variance against
    unpredictability for every candidate (one line per family)."""
    rows = [(family, ",".join(f"{p:g}" for p in c.params), f"{c.unpredictability:.4f}",
             f"{c.outcome_variance:.4f}")
            for family, cands in result.winners.items() for c in cands]
    series = {family: [(c.unpredictability, c.outcome_variance) for c in cands]
              for family, cands in result.tables.items()}
    chart = svg_lines(series, x_label="unpredictability", y_label="outcome variance")
    caption = (f"n = {result.values}, min unpredictability {result.min_entropy:g} "
               f"({result.floor})")
    table = html_table(["system", "params", "unpredictability", "outcome variance"], rows,
                       caption)
    return f'<div class="chancekit">{table}{chart}</div>'
