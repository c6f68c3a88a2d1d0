"""Figures: entropy and outcome variance over the draws of a match (needs matplotlib).

The published article's two figures: the normalised entropy before each draw t, and the
expected outcome variance after draw t, for a few systems side by side.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from chancekit.errors import InvalidValueError
from chancekit.fair.metrics import Metrics

__all__ = ["plot_metrics"]


def plot_metrics(metrics: Sequence[Metrics], path: str | os.PathLike[str], *,
                 labels: Sequence[str] | None = None, title: str | None = None) -> None:
    """Write a PNG with two panels — entropy over t and outcome variance over t — one line
    per :class:`Metrics` (Monte Carlo lines get a ±2 SE band). O(total series length).

    >>> import tempfile, os
    >>> from chancekit.fair import Dice, evaluate
    >>> path = os.path.join(tempfile.mkdtemp(), "fig.png")
    >>> plot_metrics([evaluate(Dice(6), 10)], path)
    >>> os.path.getsize(path) > 0
    True
    """
    metrics = list(metrics)
    if not metrics:
        raise InvalidValueError("metrics", metrics, "at least one Metrics to plot")
    if labels is not None and len(labels) != len(metrics):
        raise InvalidValueError("labels", labels, f"{len(metrics)} labels")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for i, m in enumerate(metrics):
        label = labels[i] if labels else m.system
        t = np.arange(1, m.samples + 1)
        for ax, key in ((ax1, "entropy"), (ax2, "outcome_variance")):
            y = np.asarray(m.series[key])
            (line,) = ax.plot(t, y, label=label, lw=1.6)
            se = m.series_se.get(key)
            if se:
                s = np.asarray(se)
                ax.fill_between(t, y - 2 * s, y + 2 * s, color=line.get_color(), alpha=0.2)
    ax1.set_xlabel("draw t")
    ax1.set_ylabel("normalised entropy before draw t")
    ax1.set_ylim(0, 1.05)
    ax2.set_xlabel("draw t")
    ax2.set_ylabel("expected outcome variance after draw t")
    ax1.legend(fontsize=8)
    ax1.grid(alpha=0.3)
    ax2.grid(alpha=0.3)
    fig.suptitle(title or f"n = {metrics[0].n} values, N = {metrics[0].samples} draws")
    fig.tight_layout()
    fig.savefig(os.fspath(path), dpi=110)
    plt.close(fig)
