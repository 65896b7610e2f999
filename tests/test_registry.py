"""Model registry: checksums are enforced, a missing model names the command that prepares it."""

from __future__ import annotations

import json
import shutil

import pytest

from app import registry
from app.errors import ModelError
from tests.conftest import MODELS, need_models


def test_every_build_entry_has_pinned_checksums_and_metadata():
    for spec in registry.REGISTRY.values():
        assert spec.runtime and spec.source and spec.license and spec.window
        if spec.prepared == "build":
            assert all(f.sha256 and len(f.sha256) == 64 for f in spec.files), spec.name


def test_missing_model_names_the_fix(tmp_path):
    with pytest.raises(ModelError) as err:
        registry.verify(registry.get("silero-vad"), tmp_path)
    assert "missing" in str(err.value) and "python build.py" in str(err.value)


def _vad_copy(tmp_path, content: bytes | None = None):
    """The VAD model's file under a scratch models folder: a true copy, or `content`."""
    need_models("silero-vad")
    spec = registry.get("silero-vad")
    dest = tmp_path / spec.files[0].path
    dest.parent.mkdir(parents=True)
    if content is None:
        shutil.copyfile(MODELS / spec.files[0].path, dest)
    else:
        dest.write_bytes(content)
    return spec, dest


def test_checksum_mismatch_is_refused(tmp_path):
    spec, dest = _vad_copy(tmp_path)
    registry.verify(spec, tmp_path)  # intact copy passes
    data = bytearray(dest.read_bytes())
    data[1000] ^= 0xFF
    dest.write_bytes(data)
    with pytest.raises(ModelError) as err:
        registry.verify(spec, tmp_path)
    assert "checksum mismatch" in str(err.value) and "python build.py" in str(err.value)


def test_manifest_records_a_verified_reexport(tmp_path):
    spec, dest = _vad_copy(tmp_path, b"an export made by another toolchain")
    with pytest.raises(ModelError):
        registry.verify(spec, tmp_path)
    (tmp_path / registry.MANIFEST).write_text(json.dumps({spec.files[0].path: registry.sha256_file(dest)}))
    registry.verify(spec, tmp_path)


def test_unknown_model_name():
    with pytest.raises(ModelError, match="unknown model"):
        registry.get("no-such-model")
