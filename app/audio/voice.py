"""Speaker embeddings: the resemblyzer voice encoder exported to ONNX, with its mel front end in numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.devices import onnx_session
from app.errors import ModelError
from app.frames import SAMPLE_RATE_HZ

N_FFT = 400  # 25 ms window
HOP = 160  # 10 ms step
PARTIAL_FRAMES = 160  # 1.6 s per partial utterance
PARTIAL_RATE = 1.3  # partials per second, as resemblyzer's embed_utterance
MIN_COVERAGE = 0.75
TARGET_DBFS = -30.0


def normalize_volume(wav: np.ndarray, target_dbfs: float = TARGET_DBFS) -> np.ndarray:
    """Raise (never lower) the level to target_dbfs, as resemblyzer's preprocess_wav does."""
    power = float(np.mean(wav.astype(np.float64) ** 2))
    if power <= 0:
        return wav
    change_db = target_dbfs - 10 * np.log10(power)
    return wav if change_db < 0 else (wav * 10 ** (change_db / 20)).astype(np.float32)


def partial_slices(n_samples: int) -> list[slice]:
    """Mel-frame slices of the partial utterances (resemblyzer's compute_partial_slices)."""
    n_frames = int(np.ceil((n_samples + 1) / HOP))
    step = max(1, round(SAMPLE_RATE_HZ / PARTIAL_RATE / HOP))
    slices = [slice(i, i + PARTIAL_FRAMES) for i in range(0, max(1, n_frames - PARTIAL_FRAMES + step + 1), step)]
    last = slices[-1]
    coverage = (n_samples - last.start * HOP) / (PARTIAL_FRAMES * HOP)
    if coverage < MIN_COVERAGE and len(slices) > 1:
        slices = slices[:-1]
    return slices


class VoiceEncoder:
    """256-d unit speaker embedding of 16 kHz speech; best on 2 s or more, reliable from about 5 s."""

    def __init__(self, encoder_path: Path, mel_path: Path, device: str = "cpu", threads: int = 1) -> None:
        try:
            self._sess = onnx_session(encoder_path, device, threads)
            self._mel = np.load(mel_path).astype(np.float32)  # (40, 201)
        except Exception as e:
            raise ModelError(f"cannot load the voice encoder from {encoder_path}: {e}") from e
        self._window = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)).astype(np.float32)

    @property
    def window_samples(self) -> int:
        return PARTIAL_FRAMES * HOP

    def mel_frames(self, wav: np.ndarray) -> np.ndarray:
        """(frames, 40) power mel spectrogram, centred frames with zero padding (librosa's defaults)."""
        padded = np.pad(wav.astype(np.float32, copy=False), N_FFT // 2)
        n = 1 + (len(padded) - N_FFT) // HOP
        frames = np.lib.stride_tricks.as_strided(
            padded, (n, N_FFT), (padded.strides[0] * HOP, padded.strides[0]), writeable=False
        )
        power = np.abs(np.fft.rfft(frames * self._window, n=N_FFT)) ** 2
        return (power.astype(np.float32) @ self._mel.T).astype(np.float32)

    def __call__(self, wav: np.ndarray) -> np.ndarray:
        if len(wav) == 0:
            raise ValueError("empty audio")
        wav = normalize_volume(wav)
        slices = partial_slices(len(wav))
        need = slices[-1].stop * HOP
        if need > len(wav):
            wav = np.pad(wav, (0, need - len(wav)))
        mel = self.mel_frames(wav)
        batch = np.stack([mel[s] for s in slices])
        partial = self._sess.run(None, {"mels": batch})[0]
        raw = partial.mean(axis=0)
        return (raw / np.linalg.norm(raw)).astype(np.float32)

    def windows(self, wav: np.ndarray, window_s: float, hop_s: float) -> tuple[np.ndarray, np.ndarray]:
        """Unit embeddings of the partials `window_s` long every `hop_s` (the last ending with the audio; one,
        zero-padded, for shorter audio) and their centres in seconds: the voice over time."""
        if len(wav) == 0:
            raise ValueError("empty audio")
        frames, hop = round(window_s * SAMPLE_RATE_HZ / HOP), max(1, round(hop_s * SAMPLE_RATE_HZ / HOP))
        mel = self.mel_frames(normalize_volume(wav))
        if len(mel) < frames:
            mel = np.pad(mel, ((0, frames - len(mel)), (0, 0)))
        starts = list(range(0, len(mel) - frames + 1, hop))
        if starts[-1] != len(mel) - frames:
            starts.append(len(mel) - frames)
        out = self._sess.run(None, {"mels": np.stack([mel[i : i + frames] for i in starts])})[0]
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        centres = (np.array(starts) + frames / 2) * HOP / SAMPLE_RATE_HZ
        return out.astype(np.float32), np.minimum(centres, len(wav) / SAMPLE_RATE_HZ)


SHERPA_FRAMEWORKS = ("wespeaker", "3d-speaker", "nemo")


class SherpaVoiceEncoder:
    """A sherpa-onnx speaker embedding model (WeSpeaker, 3D-Speaker or NeMo exported with sherpa's metadata)
    placed in `models/sherpa-<name>/`: unit embeddings of 16 kHz speech, dimension from the model."""

    def __init__(self, folder: Path, device: str = "cpu", threads: int = 1) -> None:
        models = sorted(folder.glob("*.onnx")) if folder.is_dir() else []
        if len(models) != 1:
            raise ModelError(f"{folder} must hold exactly one speaker embedding .onnx (found {len(models)})")
        self.path = models[0]
        framework = _sherpa_framework(self.path)  # checked first: sherpa exits the process on a wrong model
        try:
            # lazy: loaded only where a sherpa-onnx speaker model is used
            import sherpa_onnx
        except ImportError as e:
            raise ModelError("sherpa-onnx is not installed: pip install sherpa-onnx") from e
        config = sherpa_onnx.SpeakerEmbeddingExtractorConfig(
            model=str(self.path), num_threads=threads, provider="cuda" if device != "cpu" else "cpu"
        )
        if not config.validate():
            raise ModelError(f"sherpa-onnx rejects the speaker model {self.path}")
        self._extractor = sherpa_onnx.SpeakerEmbeddingExtractor(config)
        self.dim = int(self._extractor.dim)
        self.framework = framework

    def __call__(self, wav: np.ndarray) -> np.ndarray:
        if len(wav) == 0:
            raise ValueError("empty audio")
        stream = self._extractor.create_stream()
        stream.accept_waveform(SAMPLE_RATE_HZ, np.ascontiguousarray(wav, np.float32))
        stream.input_finished()
        raw = np.asarray(self._extractor.compute(stream), np.float32)
        return (raw / max(float(np.linalg.norm(raw)), 1e-12)).astype(np.float32)

    def windows(self, wav: np.ndarray, window_s: float, hop_s: float) -> tuple[np.ndarray, np.ndarray]:
        """As VoiceEncoder.windows, one call of the model per window."""
        size, step = round(window_s * SAMPLE_RATE_HZ), max(1, round(hop_s * SAMPLE_RATE_HZ))
        starts = list(range(0, max(1, len(wav) - size + 1), step))
        if len(wav) > size and starts[-1] != len(wav) - size:
            starts.append(len(wav) - size)
        out = np.stack([self(wav[i : i + size]) for i in starts])
        centres = (np.array(starts) + min(size, len(wav)) / 2) / SAMPLE_RATE_HZ
        return out, centres


def _sherpa_framework(path: Path) -> str:
    """The model's `framework` metadata, with the fields sherpa-onnx reads for it; a clear error otherwise."""
    # lazy: onnxruntime is heavy (~0.1 s); only a sherpa model is read here
    import onnxruntime as ort

    try:
        meta = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).get_modelmeta()
    except Exception as e:
        raise ModelError(f"cannot load the speaker model {path}: {str(e).splitlines()[0]}") from e
    props = meta.custom_metadata_map
    framework = props.get("framework", "")
    needed = {"output_dim", "sample_rate"} | ({"normalize_samples"} if framework == "wespeaker" else set())
    if framework not in SHERPA_FRAMEWORKS or not needed <= props.keys():
        raise ModelError(
            f"{path} is not a sherpa-onnx speaker model (framework {framework or 'missing'}; "
            f"needs metadata {', '.join(sorted(needed | {'framework'}))})"
        )
    if props["sample_rate"] != str(SAMPLE_RATE_HZ):
        raise ModelError(f"{path} expects {props['sample_rate']} Hz audio; the recorder gives {SAMPLE_RATE_HZ}")
    return framework
