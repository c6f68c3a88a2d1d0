"""A small, bounded version of benchmarks/bench_web.py: concurrent clients over the mixed
corpus while one client sends expensive expressions. Asserts no failures and that the
refusals are 4xx -- never latency (benchmarks/ and docs/performance.md record that)."""

from __future__ import annotations

from bench_web import EXPENSIVE, run_load


def test_load_has_no_errors_and_refuses_expensive_work(server_url: str) -> None:
    report = run_load(server_url, requests=60, clients=10, expensive=len(EXPENSIVE))
    assert not report.failures, report.failures[:5]
    assert len(report.samples) == 60
    assert len(report.refusals) == len(EXPENSIVE)
    assert all(400 <= s.status < 500 for s in report.refusals)
