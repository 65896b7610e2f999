"""build.py's helpers. common.py is standard library only (build.py imports it before .venv exists); fetch.py
needs only app.registry besides; models.py (exports, the demo) and probe.py run inside .venv."""
