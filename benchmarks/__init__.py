"""Benchmarks (not part of the test run): `./dev bench` = `python -m benchmarks`. See benchmarks/README.md."""
