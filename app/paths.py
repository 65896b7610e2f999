"""Where the app keeps its data and its key file."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "lifemem"
DB_NAME = "memory.db"


def data_dir(override: str | None = None) -> Path:
    """The one folder the app writes its data to: --data-dir, $APP_DATA_DIR, or the per-user data folder."""
    chosen = override or os.environ.get("APP_DATA_DIR") or platformdirs.user_data_dir(APP_NAME)
    return Path(chosen).expanduser()


def default_key_file() -> Path:
    """The key file used when neither APP_KEY nor APP_KEY_FILE is set: kept apart from the data folder."""
    return Path(platformdirs.user_config_dir(APP_NAME)) / "key"
