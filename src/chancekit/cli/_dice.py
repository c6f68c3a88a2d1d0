"""Subcommands for this capability (being written)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:  # noqa: ARG001
    """Add this module's subcommands to ``sub``."""
