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
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

# Standard library only (the system Python runs this before .venv exists); the steps that need the app's
# packages live in app/setup/ and are imported where they run, inside .venv.
from app.setup.common import FAULT_EXIT, ROOT, log, run

VENV = ROOT / ".venv"
VENV_PY = VENV / "bin" / "python"
# flite voices the demo and test speech; espeak-ng the s-norm seed cohort; PortAudio serves the microphone
APT_PACKAGES = ("flite", "espeak-ng", "libportaudio2")
# --dev: Chromium for the browser tests (tests/test_web.py, headless); a PulseAudio server with a null sink for the
# microphone tests (tests/test_microphone.py: paplay plays into it, ALSA reaches it through libasound2-plugins)
APT_DEV_PACKAGES = ("chromium", "chromium-driver", "pulseaudio", "pulseaudio-utils", "libasound2-plugins")
TORCH = "torch==2.13.0"  # CPU build; install first so nothing pulls a CUDA build (export only)
INSIGHTFACE = "insightface==2.1"  # for its sample group photo only, installed without dependencies
STAMP = VENV / ".lifemem-install"
LLAMA_CPP = "llama-cpp-python==0.3.36"  # pinned in pyproject.toml too
WHEELHOUSE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "lifemem" / "wheels"


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
    if optional := [p for p in missing if p not in APT_PACKAGES]:  # where one is no .deb, its tests skip
        install = [*sudo, "apt-get", "install", "-y", "-q"]
        log("$ " + " ".join([*install, *optional]))
        if subprocess.run([*install, *optional], env=env, check=False).returncode:  # one at a time: which is not
            failed = [p for p in optional if subprocess.run([*install, p], env=env, check=False).returncode]
            log(f"could not install {', '.join(failed)}: the tests that need them will skip")


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
    # imported where used: the plain setup runs on the system Python; models and probe need .venv's packages
    if args.probe_llm:
        from app.setup.probe import probe_llm

        return probe_llm()
    if args.check:
        from app.setup.fetch import check_models

        check_models()
    elif args.download:
        from app.setup.fetch import download

        download(args.download)
    elif args.models:
        from app.setup.models import prepare_models

        prepare_models()
    else:
        ensure_system_packages(args.dev)
        ensure_venv(args.dev)
        run([str(VENV_PY), __file__, "--models"])
        prove_llm_runs()
    return 0


if __name__ == "__main__":
    sys.exit(main())
