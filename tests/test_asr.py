"""Speech recognition: faster-whisper (the default) and PocketSphinx on generated sentences and on real
recordings; `eval asr`; user-model loaders fail clearly."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.audio.asr import SherpaAsr, WhisperAsr, load_recognizer
from app.audio.media import read_audio
from app.cli import main
from app.errors import ModelError
from tests.conftest import MODELS, need_models, wer

SENTENCES = (
    "My colleague John is a teacher and he likes to cook Italian food.",
    "We are planning a trip to Paris in the summer with my family.",
    "Remember that the meeting with the doctor is on Friday at three o'clock.",
)


@pytest.fixture(scope="module", params=["whisper-base", "pocketsphinx-en-us"])
def recognizer(request):
    need_models(request.param)
    return load_recognizer(request.param, MODELS)


@pytest.mark.parametrize("voice", ["slt", "rms", "kal16"])
def test_recognizers_on_generated_speech(recognizer, speech, voice):
    rates = []
    for text in SENTENCES:
        hyp = recognizer(speech(text, voice))
        rates.append(wer(text, hyp.text))
        assert 0.0 <= hyp.confidence <= 1.0
    mean = sum(rates) / len(rates)
    print(f"{recognizer.name} WER on flite {voice}: {mean:.3f} ({', '.join(f'{r:.2f}' for r in rates)})")
    assert mean <= 0.15


def test_whisper_on_real_recordings(shared_data):
    """The default recognizer on real read speech: the JFK clip (44.1 kHz stereo) and an LJSpeech clip."""
    need_models("whisper-base")
    asr = load_recognizer("whisper-base", MODELS)
    jfk = asr(read_audio(shared_data / "asr_small_samples" / "whisper_jfk" / "jfk.flac")).text.lower()
    assert "my fellow americans" in jfk and "ask not what your country can do for you" in jfk
    lj = asr(read_audio(shared_data / "asr_small_samples" / "ljspeech" / "LJ001-0004.flac")).text
    assert wer("produced the block books, which were the immediate predecessors of the true printed book,", lj) <= 0.1


def test_whisper_base_reads_the_utterance_in_a_window_of_15_s_not_30(speech):
    """The encoder reads the utterance and a second, at least 15 s, not faster-whisper's 30-s padding: the same
    words for a fraction of the cost (README, Speech recognition); a long clip gets its own length."""
    need_models("whisper-base")
    asr = load_recognizer("whisper-base", MODELS)
    encoded: list[int] = []
    encode = asr._model.encode
    asr._model.encode = lambda features: encoded.append(min(features.shape[-1], asr._model.frames)) or encode(features)
    for text in SENTENCES:
        clip = speech(text)
        windowed = asr(clip).text
        asr._min_frames = 3000  # Whisper's own window, for the same clip
        assert asr(clip).text == windowed
        asr._min_frames = 1500
    long = np.concatenate([speech(text) for text in (*SENTENCES, SENTENCES[0])])  # ~20 s
    assert wer(" ".join((*SENTENCES, SENTENCES[0])), asr(long).text) <= 0.1
    assert encoded[:6] == [1500, 3000] * 3 and 1700 < encoded[6] < 3000


def test_words_times_add_no_words(speech):
    """Asked for its words' times, faster-whisper decodes again from the last word's end and makes something of
    the pause there ("... this is my first visit. it."), which it judges no speech itself: that pass is dropped (a
    later pass where the first stopped early, over speech, is kept: the eval's tail "Serve in a chafing dish...")."""
    need_models("whisper-base")
    asr = load_recognizer("whisper-base", MODELS)
    two = np.concatenate(
        [speech("Good morning, my name is Olivia and I'll be your guide.", "slt"), speech("Thanks, I'm Henry.", "awb")]
    )
    plain, timed = asr(two), asr(two, words=True)
    assert timed.text == plain.text and " ".join(w.text for w in timed.words) == plain.text
    assert all(0 <= w.start_s <= w.end_s <= len(two) / 16000 for w in timed.words)


def test_words_times_decode_no_pass_over_the_pad(speech):
    """Asked for its words' times, faster-whisper would decode again from the last word's end, a whole window's
    encoding for the pad the VAD keeps after the speech: when the words reach within LATER_PASS_MIN_S of the
    end, that pass is never decoded (one encoding, as without the times)."""
    need_models("whisper-base")
    asr = load_recognizer("whisper-base", MODELS)
    encoded: list[int] = []
    encode = asr._model.encode
    asr._model.encode = lambda features: encoded.append(1) or encode(features)
    clip = np.concatenate([speech(SENTENCES[0]), np.zeros(8000, np.float32)])  # half a second of pad
    timed = asr(clip, words=True)
    assert wer(SENTENCES[0], timed.text) <= 0.15 and timed.words
    assert len(encoded) == 1


def test_a_later_pass_saying_again_what_the_last_ended_with_ends_the_reading():
    """Over a stretch of several voices a later pass once said "Miss Inns." eleven times, each pass a whole
    window's encoding. Whisper's loops cannot be called up at will, so this double of faster-whisper's
    transcribe (the real recognizer around it) yields such passes: the first repeat ends the reading and is
    dropped, and nothing after it is decoded."""
    from types import SimpleNamespace

    need_models("whisper-base")
    asr = load_recognizer("whisper-base", MODELS)
    asked = []

    def segment(seek: int, text: str, end: float):
        word = SimpleNamespace(word=text.rsplit(maxsplit=1)[-1], start=end - 0.3, end=end)
        return SimpleNamespace(
            seek=seek, text=text, words=[word], no_speech_prob=0.1, avg_logprob=-0.3, compression_ratio=1.2
        )

    def passes():
        for k, (text, end) in enumerate([("every purpose. Miss Inns.", 4.0), ("Miss Inns.", 5.0), ("Miss Inns.", 6.0)]):
            asked.append(k)
            yield segment(k * 100, text, end)

    asr._model.transcribe = lambda audio, **options: (passes(), None)
    heard = asr(np.full(16000 * 10, 0.1, np.float32), words=True)
    assert heard.text == "every purpose. Miss Inns." and asked == [0, 1]


@pytest.mark.parametrize("name", ["whisper-base", "whisper-tiny.en"])
def test_silence_and_noise_give_no_words(name):
    """Whisper makes words up in silence and noise ("you"); whether one CPU's kernels push a made-up segment past
    faster-whisper's own threshold is chance, so the recognizer drops them with a margin (app/audio/asr.py)."""
    need_models(name)
    asr = load_recognizer(name, MODELS)
    rng = np.random.default_rng(7)
    t = np.arange(3 * 16000) / 16000
    quiet = {
        "digital silence": np.zeros(3 * 16000),
        "dither": rng.standard_normal(3 * 16000) * 1e-4,
        "white noise": rng.standard_normal(3 * 16000) * 0.01,
        "loud white noise": rng.standard_normal(3 * 16000) * 0.1,
        "mains hum": 0.05 * np.sin(2 * np.pi * 50 * t),
    }
    heard = {what: asr(audio.astype(np.float32)).text for what, audio in quiet.items()}
    assert heard == dict.fromkeys(quiet, ""), heard


def test_short_quiet_words_are_still_heard(shared_data):
    """The silence rule keeps real words whose no-speech probability is high: FSDD's spoken digits."""
    need_models("whisper-base")
    asr = load_recognizer("whisper-base", MODELS)
    clips = sorted((shared_data / "fsdd_spoken_digits" / "recordings").glob("1_*.wav"))[:10]
    heard = [asr(read_audio(clip)).text.lower() for clip in clips]
    assert sum("one" in text or "1" in text for text in heard) >= 8, heard


def test_eval_asr_compares_every_engine(shared_data, tmp_path, capsys):
    need_models("whisper-base", "pocketsphinx-en-us")
    pytest.importorskip("jiwer")
    data = ["--data", str(shared_data / "asr_small_samples"), "--data", str(shared_data / "fsdd_spoken_digits")]
    assert main(["eval", "asr", *data, "--limit", "4", "--out", str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report == json.loads((tmp_path / "asr.json").read_text())
    assert report["default"] == "whisper-base" and report["plot"] and (tmp_path / "asr.png").stat().st_size > 0
    assert report["clips"]["ljspeech"] == 8 and report["clips"]["jfk"] == 1 and report["clips"]["digits"] == 4
    whisper, sphinx = report["engines"]["whisper-base"], report["engines"]["pocketsphinx-en-us"]
    for engine in (whisper, sphinx):
        assert engine["overall"]["rtf"] > 0 and engine["datasets"]["ljspeech"]["clips"] == 8
    assert whisper["datasets"]["jfk"]["wer"] == 0.0  # the reference is the dataset README's wording
    assert whisper["datasets"]["ljspeech"]["wer"] < sphinx["datasets"]["ljspeech"]["wer"]


def test_eval_asr_unreadable_reference_is_one_line(tmp_path, capsys):
    folder = tmp_path / "asr" / "ljspeech"
    folder.mkdir(parents=True)
    (folder / "metadata.csv").write_text("LJ001-0001 no separators here\n")
    assert main(["eval", "asr", "--data", str(tmp_path / "asr"), "--out", str(tmp_path / "out")]) != 0
    err = capsys.readouterr().err.strip()
    assert "metadata.csv" in err and "\n" not in err and "Traceback" not in err


def test_whisper_folder_missing_files(tmp_path):
    (tmp_path / "whisper-tiny").mkdir()
    with pytest.raises(ModelError, match="lacks model.bin"):
        WhisperAsr(tmp_path / "whisper-tiny")


def test_sherpa_folder_missing(tmp_path):
    with pytest.raises(ModelError, match="not found"):
        SherpaAsr(tmp_path / "sherpa-zipformer")


def test_unknown_recognizer_name():
    with pytest.raises(ModelError, match="unknown model"):
        load_recognizer("wav2vec-huge", MODELS)


def test_a_registry_model_that_is_not_asr():
    with pytest.raises(ModelError, match="not a speech recognizer"):
        load_recognizer("silero-vad", MODELS)
