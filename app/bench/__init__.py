"""`python -m app bench ...`: benchmarks that print numbers and ratios, one module per target."""
