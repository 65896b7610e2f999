"""The database secret: from $APP_KEY, a key file, or a prompt; never from config, never logged.

The secret is stretched with scrypt (memory-hard) using the 16-byte salt SQLCipher keeps in the database
header, and the result is handed to SQLCipher as a raw 256-bit key.
"""

from __future__ import annotations

import getpass
import hashlib
import logging
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from app.errors import StoreKeyError
from app.paths import default_key_file

_LOGGER = logging.getLogger(__name__)
SALT_BYTES = 16


@dataclass(frozen=True)
class Secret:
    value: bytes
    source: str  # where it came from, safe to show: "APP_KEY", "key file /path", "prompt"

    def __repr__(self) -> str:  # never print the secret itself
        return f"Secret(source={self.source!r})"


def read_key_file(path: Path) -> Secret:
    try:
        value = path.read_bytes().strip()
    except OSError as e:
        raise StoreKeyError(f"cannot read key file {path}: {e.strerror}") from None
    if not value:
        raise StoreKeyError(f"key file {path} is empty")
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        _LOGGER.warning("key file %s is readable by other users; run: chmod 600 %s", path, path)
    return Secret(value, f"key file {path}")


def create_key_file(path: Path) -> Secret:
    """Write a new random 256-bit key (hex) readable by the owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_hex(32).encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(value + b"\n")
    _LOGGER.warning(
        "created a new memory key at %s; keep a copy somewhere safe: without it the memory cannot be read", path
    )
    return Secret(value, f"key file {path}")


def resolve_secret(key_file: Path | None = None, prompt: bool = False, create: bool = False) -> Secret:
    """$APP_KEY, else --key-file / $APP_KEY_FILE, else the default key file, else a prompt (--key-prompt),
    else (only when a new memory is being created) a new random key file at the default place."""
    env_key = os.environ.get("APP_KEY")
    if env_key:
        return Secret(env_key.encode(), "APP_KEY")
    explicit = key_file or (Path(os.environ["APP_KEY_FILE"]) if os.environ.get("APP_KEY_FILE") else None)
    if explicit is not None:
        if not explicit.exists() and create:
            return create_key_file(explicit)
        return read_key_file(explicit)
    if prompt:
        value = getpass.getpass("memory key: ").encode()
        if not value:
            raise StoreKeyError("empty key")
        return Secret(value, "prompt")
    default = default_key_file()
    if default.exists():
        return read_key_file(default)
    if create:
        return create_key_file(default)
    raise StoreKeyError("no key: set APP_KEY, point APP_KEY_FILE at a key file, or pass --key-prompt")


def derive_key(secret: Secret, salt: bytes, log2_n: int) -> bytes:
    """scrypt(secret, salt) -> 32 bytes; N = 2**log2_n, r = 8, p = 1."""
    n = 1 << log2_n
    return hashlib.scrypt(secret.value, salt=salt, n=n, r=8, p=1, maxmem=256 * n * 8 + (1 << 20), dklen=32)
