"""The old home of the ``rng=`` convention (private): ``resolve_rng`` and
:func:`default_rng` now live in :mod:`chancekit.rng.source` (their one home, so the
imports go one way: this module re-exports them for existing callers).

``resolve_rng`` is :func:`~chancekit.rng.source.as_source`: ``None`` -> the process-wide
:func:`default_rng`; a bit source (a ``PCG32``, a named stream, a scripted test source)
-> itself; a :class:`~chancekit.PCG32Random` -> the ``PCG32`` it runs on. An integer is
refused (:class:`~chancekit.errors.InvalidTypeError`): a per-draw method given ``rng=5``
would restart the same sequence on every call, so ``[table.draw(5) for _ in range(6)]``
gave six equal values. Seed once, outside the loop: ``rng = PCG32(5)``, then
``table.draw(rng)``.

>>> from chancekit import PCG32
>>> g = PCG32(42); resolve_rng(g) is g
True
>>> resolve_rng(42)
Traceback (most recent call last):
...
chancekit.errors.InvalidTypeError: rng must be a bit source such as chancekit.PCG32(42) or \
a named stream, not int (42): an integer here would restart the same sequence on every call
"""

from chancekit.rng.source import default_rng, resolve_rng

__all__ = ["default_rng", "resolve_rng"]
