"""`python -m app` entry point."""

import sys

from app.cli import main

sys.exit(main(sys.argv[1:]))
