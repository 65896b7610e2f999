"""Encrypted raw media files: AES-256-GCM, key derived (HKDF-SHA256) from the database key.

File layout: b"LMM1" | 12-byte random nonce | ciphertext + 16-byte tag. The file's own name is
authenticated with it, so a file renamed or swapped with another fails to open, like a tampered one.
"""

from __future__ import annotations

import errno
import os
import secrets
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from app.errors import DiskFullError, StoreError

MAGIC = b"LMM1"
NONCE_BYTES = 12
SUFFIX = ".lmm"
RESEAL_SUFFIX = ".rekey"  # a file re-sealed under a new key, waiting to replace its original


def media_key(db_key: bytes) -> bytes:
    """A separate 256-bit key for media, derived from the database key."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"lifemem media v1").derive(db_key)


class MediaVault:
    """The media folder: put() encrypts to a new random file name, get() decrypts and authenticates."""

    def __init__(self, folder: Path, key: bytes) -> None:
        self.folder = folder
        self._aead = AESGCM(key)

    def _seal(self, name: str, data: bytes) -> bytes:
        nonce = secrets.token_bytes(NONCE_BYTES)
        return MAGIC + nonce + self._aead.encrypt(nonce, data, MAGIC + name.encode())

    def put(self, data: bytes) -> tuple[str, int]:
        """Encrypt `data` into a new file; returns (file name, bytes on disk). Written atomically, synced."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        name = secrets.token_hex(16) + SUFFIX
        blob = self._seal(name, data)
        self._write(self.folder / name, blob)
        return name, len(blob)

    def put_named(self, name: str, data: bytes) -> None:
        """Encrypt `data` to the file `name`, replacing it atomically."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._write(self.folder / name, self._seal(name, data))

    @staticmethod
    def _write(path: Path, blob: bytes) -> None:
        try:
            MediaVault._write_synced(path, blob)
        except OSError as e:
            if e.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
                raise DiskFullError(f"disk full: cannot write media to {path.parent} ({e.strerror})") from None
            raise

    @staticmethod
    def _write_synced(path: Path, blob: bytes) -> None:
        tmp = path.with_name(path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(blob)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def _open(self, blob: bytes, name: str) -> bytes:
        """Decrypt and authenticate; ValueError if it is not a media file, InvalidTag if it does not verify."""
        if len(blob) < len(MAGIC) + NONCE_BYTES + 16 or not blob.startswith(MAGIC):
            raise ValueError("not a lifemem media file")
        nonce = blob[len(MAGIC) : len(MAGIC) + NONCE_BYTES]
        return self._aead.decrypt(nonce, blob[len(MAGIC) + NONCE_BYTES :], MAGIC + name.encode())

    def get(self, name: str) -> bytes:
        path = self.folder / name
        try:
            return self._open(path.read_bytes(), name)
        except FileNotFoundError:
            raise StoreError(f"media file {path} is missing") from None
        except ValueError:
            raise StoreError(f"media file {path} is damaged or not a lifemem media file") from None
        except InvalidTag:
            raise StoreError(f"media file {path} was tampered with, damaged, or is under another key") from None

    def delete(self, name: str) -> None:
        (self.folder / name).unlink(missing_ok=True)

    def reseal(self, name: str, new: MediaVault) -> None:
        """Re-encrypt one file under another vault's key, to a side file `name + RESEAL_SUFFIX` (atomically)."""
        self._write(self.folder / (name + RESEAL_SUFFIX), new._seal(name, self.get(name)))

    def finish_reseal(self) -> None:
        """Move re-sealed side files into place; those that do not open under this vault's key are stale."""
        for side in self.folder.glob("*" + RESEAL_SUFFIX) if self.folder.is_dir() else []:
            name = side.name.removesuffix(RESEAL_SUFFIX)
            if self.opens(side, name):
                side.replace(side.with_name(name))
            else:
                side.unlink()

    def opens(self, path: Path, name: str) -> bool:
        """Whether `path` decrypts under this vault's key as the file called `name`."""
        try:
            self._open(path.read_bytes(), name)
            return True
        except (InvalidTag, ValueError):
            return False

    def files(self) -> list[str]:
        return sorted(p.name for p in self.folder.glob("*" + SUFFIX)) if self.folder.is_dir() else []
