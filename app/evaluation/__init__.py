"""Evaluations on real data: faces, speakers, sessions (each `python -m app eval ...`)."""
