"""Benchmarks: ``python -m benchmarks`` (or ``python3 dev.py bench``) writes reports/bench.{json,md}."""
