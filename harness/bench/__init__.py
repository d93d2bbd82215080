"""Benchmarks called by ``harness bench``: they print figures, they never assert."""
