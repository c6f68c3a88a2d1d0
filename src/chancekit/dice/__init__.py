"""Exact dice probabilities (being written)."""
