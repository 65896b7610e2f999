"""`doctor`: models present and verified, runtimes and providers, capture devices, database state."""

from __future__ import annotations

import glob
import importlib.metadata
import importlib.util
import json
import platform
import shutil
import sys
from pathlib import Path

from app import __version__, registry
from app.bench.llm import measure_speed
from app.config import Config
from app.devices import available_providers, onnx_providers
from app.errors import AppError
from app.llm import load_llm
from app.recorder.perception import face_backend
from app.store.keys import resolve_secret
from app.store.memory import Memory

OPTIONAL_RUNTIMES = {
    "faster_whisper": "faster-whisper (models/whisper-*)",
    "sherpa_onnx": "sherpa-onnx (models/sherpa-*)",
    "ai_edge_litert": "ai-edge-litert (TFLite models)",
}


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _runtimes(cfg: Config) -> dict:
    return {
        "python": sys.version.split()[0],
        "onnxruntime": _version("onnxruntime") or _version("onnxruntime-gpu"),
        "onnx_providers_available": available_providers(),
        "onnx_providers_used": list(onnx_providers(cfg.device.kind)),
        "dlib": _version("dlib-bin") or _version("dlib"),
        "pocketsphinx": _version("pocketsphinx"),
        "sqlcipher3": _version("sqlcipher3"),
        "sqlite_vec": _version("sqlite-vec"),
        "pyav": _version("av"),
        "llama_cpp": _version("llama-cpp-python"),
        "optional": {label: importlib.util.find_spec(mod) is not None for mod, label in OPTIONAL_RUNTIMES.items()},
    }


def _devices() -> dict:
    out: dict = {"flite": shutil.which("flite") is not None}
    try:
        # lazy: sounddevice needs PortAudio; its absence is reported, not raised
        import sounddevice as sd

        inputs = [d["name"] for d in sd.query_devices() if d["max_input_channels"] > 0]
        out["microphones"] = inputs
    except (OSError, ImportError) as e:
        out["microphones"] = f"unavailable: {str(e).splitlines()[0]}"
    except Exception as e:  # PortAudioError and friends: report, never fail the doctor
        out["microphones"] = f"unavailable: {str(e).splitlines()[0]}"
    out["cameras"] = _cameras()
    return out


def _cameras() -> list[int]:
    # lazy: OpenCV is heavy (~0.1 s); only the camera check needs it
    import cv2

    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    nodes = sorted(glob.glob("/dev/video*"))
    if sys.platform.startswith("linux") and not nodes:
        return []
    found = []
    for index in range(min(4, len(nodes)) if nodes else 1):
        cap = cv2.VideoCapture(index)
        if cap.isOpened():
            found.append(index)
        cap.release()
    return found


def _database(cfg: Config, path: Path, args) -> dict:
    out: dict = {"path": str(path), "exists": path.exists()}
    if not path.exists():
        return out
    out["size_bytes"] = sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
    try:
        secret = resolve_secret(args.key_file, args.key_prompt, create=False)
        out["key_source"] = secret.source
        with Memory.open(path, secret, cfg.store) as memory:
            out.update(memory.stats())
            heard = max(memory.people.all(), key=lambda p: p.utterances, default=None)
        out["wearer"] = cfg.companion.wearer or None
        out["heard_most"] = heard.name if heard is not None and heard.utterances else None
        out["state"] = "ok"
    except AppError as e:
        out["state"] = str(e)
    return out


# the CPU features llama.cpp's kernels are compiled for, as /proc/cpuinfo names them
CPU_FEATURES = (
    "sse4_2", "avx", "avx2", "fma", "f16c", "bmi2", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16",
    "avx_vnni", "amx_tile", "amx_int8", "amx_bf16", "asimd", "fphp", "asimdhp", "asimddp", "i8mm", "sve",
)  # fmt: skip


def _cpu() -> dict:
    """The CPU's model and the features seen, and the flags the installed llama.cpp was compiled with."""
    out: dict = {"machine": platform.machine(), "model": platform.processor() or "", "features": []}
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        info = ""
    for line in info.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key in ("model name", "Model") and not out["model"]:
            out["model"] = value.strip()
        elif key in ("flags", "Features"):
            have = set(value.split())
            out["features"] = [f for f in CPU_FEATURES if f in have]
            break
    build = Path(sys.prefix) / ".llama-build.json"  # written by build.py when it installs the wheel
    try:
        out["llama_cpp_build"] = json.loads(build.read_text()).get("cmake_args", "")
    except (OSError, ValueError):
        out["llama_cpp_build"] = "unknown (not installed by build.py)"
    return out


def _llm(cfg: Config) -> dict:
    """The language model: backend, model, size, and its measured prompt and generation speed. With llama.cpp
    the model runs in a child process (llm.process), so a native fault is reported here, not suffered."""
    out: dict = {"backend": cfg.llm.backend, "model": cfg.llm.model}
    try:
        llm = load_llm(cfg)
        try:
            out.update(llm.backend.info())
            out["speed"] = measure_speed(llm, prompt_words=120, generate=24)
        finally:
            llm.close()
        out["state"] = "ok"
    except AppError as e:
        out["state"] = str(e)
    return out


def _roles(cfg: Config) -> dict[str, str]:
    """The model (or backend) serving each role, `auto` resolved."""
    return {
        "vad": cfg.models.vad,
        "voice": cfg.models.voice,
        "face": face_backend(cfg),
        "text": cfg.models.text,
        "asr": cfg.models.asr,
        "llm": cfg.llm.model if cfg.llm.backend == "llama-cpp" else f"{cfg.llm.model} at {cfg.llm.url}",
    }


def _entries_in_use(roles: dict[str, str]) -> set[str]:
    """Registry entries the configured roles load (blazeface-dlib uses two)."""
    used = set(roles.values())
    if roles["face"] == "blazeface-dlib":
        used |= {"blazeface", "dlib"}
    return used


def diagnose(cfg: Config, db_path: Path, args) -> dict:
    models = registry.status(cfg.models_dir)
    roles = _roles(cfg)
    configured = _entries_in_use(roles)
    asr = cfg.models.asr
    problems = [m for m in models if m["name"] in configured and m["state"] != "ok"]
    if asr not in registry.REGISTRY:  # a user's folder (whisper-*, sherpa-*)
        state = "ok" if (cfg.models_dir / asr).is_dir() else f"missing folder {cfg.models_dir / asr}"
        models.append(
            {
                "name": asr,
                "role": "asr",
                "runtime": asr.split("-")[0],
                "state": state,
                "license": "see the model's own card",
                "prepared": "user",
            }
        )
        if state != "ok":
            problems.append(models[-1])
    llm = _llm(cfg)
    if llm["state"] != "ok":
        problems.append(llm)
    return {
        "version": __version__,
        "platform": platform.platform(),
        "device": cfg.device.kind,
        "models_dir": str(cfg.models_dir),
        "roles": roles,
        "models": models,
        "llm": llm,
        "cpu": _cpu(),
        "runtimes": _runtimes(cfg),
        "devices": _devices(),
        "database": _database(cfg, db_path, args),
        "retention": {
            "audio_hours": cfg.retention.keep_s("audio") / 3600,
            "frame_hours": cfg.retention.keep_s("frame") / 3600,
            "max_gb": cfg.retention.max_gb,
        },
        "ok": not problems,
    }


def render(report: dict) -> str:
    lines = [
        f"lifemem {report['version']} on {report['platform']} (device: {report['device']})",
        "",
        f"models in {report['models_dir']}:",
    ]
    used = _entries_in_use(report["roles"])
    for m in report["models"]:
        mark = "*" if m["name"] in used else " "
        lines.append(f" {mark} {m['name']:22s} {m['role']:6s} {m['runtime']:13s} {m['state']}")
    llm = report["llm"]
    lines += ["", f"language model ({llm['backend']}):"]
    if llm["state"] != "ok":
        lines.append(f"   {llm['model']}: {llm['state']}")
    else:
        where = (
            llm.get("url") or f"{llm['bytes'] / 1e6:.0f} MB, {llm['threads']} threads, {llm['gpu_layers']} GPU layers"
        )
        sp = llm["speed"]
        lines.append(f"   {llm['model']} ({where}); context {llm.get('context', '?')} tokens")
        lines.append(
            f"   measured: prompt {sp['prompt_tps']} tok/s, generation {sp['generation_tps']} tok/s, "
            f"first token {sp['first_token_s']:.2f} s for {sp['prompt_tokens']} prompt tokens"
        )
        if llm.get("system_info"):
            lines.append(f"   llama.cpp: {llm['system_info']}")
    cpu = report["cpu"]
    lines += [
        "",
        f"cpu: {cpu['model'] or '?'} ({cpu['machine']})",
        f"   features: {' '.join(cpu['features']) or 'none seen'}",
        f"   llama.cpp compiled with: {cpu['llama_cpp_build']}",
    ]
    rt = report["runtimes"]
    lines += [
        "",
        "runtimes:",
        f"   python {rt['python']}, onnxruntime {rt['onnxruntime']}, dlib {rt['dlib']}, pocketsphinx "
        f"{rt['pocketsphinx']}, sqlcipher3 {rt['sqlcipher3']}, sqlite-vec {rt['sqlite_vec']}, av {rt['pyav']}, "
        f"llama-cpp-python {rt['llama_cpp']}",
        f"   onnxruntime providers: used {', '.join(rt['onnx_providers_used'])}; "
        f"available {', '.join(rt['onnx_providers_available'])}",
    ]
    lines += [f"   {label}: {'installed' if ok else 'not installed'}" for label, ok in rt["optional"].items()]
    dev = report["devices"]
    mics = dev["microphones"]
    mics = ", ".join(mics) if isinstance(mics, list) else mics
    lines += [
        "",
        "devices:",
        f"   microphones: {mics or 'none'}",
        f"   cameras: {', '.join(map(str, dev['cameras'])) or 'none'}",
        f"   flite (demo and test voices): {'yes' if dev['flite'] else 'no'}",
    ]
    db = report["database"]
    lines += ["", f"database {db['path']}:"]
    if not db["exists"]:
        lines.append("   not created yet")
    else:
        lines.append(f"   {db.get('state')}; {db['size_bytes'] / 1e6:.1f} MB")
        if db.get("state") == "ok":
            lines.append(
                f"   schema v{db['schema_version']}: {db['people']} people, {db['sessions']} sessions, "
                f"{db['utterances']} utterances; key from {db['key_source']}"
            )
            lines.append(f"   raw media: {db['media_files']} files, {db['media_bytes'] / 1e6:.1f} MB")
            lines.append(f"   dense search: {db['dense_index']}")
            lines.append(f"   memory writing: {db['memory_jobs']} jobs queued")
            if db.get("wearer"):
                lines.append(f"   the wearer (who 'I' and 'my' are in questions): {db['wearer']}")
            elif db.get("heard_most"):
                lines.append(
                    f"   the wearer is not set: the voice heard most is {db['heard_most']}'s; if that is you, set "
                    f"companion.wearer to {db['heard_most']} so that questions about 'my ...' know who asks"
                )
            lines += [
                f"   {e['kind']} {e['ref']} failed ({e['attempts']} tries): {e['error']}"
                for e in db["memory_job_errors"]
            ]
    ret = report["retention"]
    lines.append(
        f"   retention: speech audio {ret['audio_hours']:g} h, face frames {ret['frame_hours']:g} h, budget "
        f"{ret['max_gb']:g} GB (transcripts and derived memory are kept)"
    )
    lines += ["", "ok" if report["ok"] else "problems found (* = in use)"]
    return "\n".join(lines) + "\n"
