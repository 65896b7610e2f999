"""Naming from self-introductions: real introductions are named, real speech that only mentions a name is not.

The negatives are real text: LJSpeech's transcripts and what PocketSphinx heard in its clips (one clip was
once heard as "... type i'm christie" and named its reader), every LoCoMo turn, and every MemoryBank turn
that is not an introduction. Each is checked as written and as lower-case speech recognition gives it.
"""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pytest

from app.identity.naming import self_introduction
from tests.conftest import need_models, record

INTRODUCTIONS = [
    ("Hi, I'm David.", "David"),
    ("My name is Maria Lopez.", "Maria"),
    ("I'm Sam, nice to meet you.", "Sam"),
    ("This is Anna speaking.", "Anna"),
    ("Hello, this is Tom calling from the dentist's office.", "Tom"),
    ("Hi, this is Rachel from the bank.", "Rachel"),
    ("Hey there, I'm Priya, I just moved in next door.", "Priya"),
    ("Nice to meet you, I'm Kenji.", "Kenji"),
    ("Hi everyone, I am Fatima and I'll be presenting today.", "Fatima"),
    ("Good morning! My name is Oliver and I'll be your guide.", "Oliver"),
    ("Good morning, my name is David, remember me? I just came back from my trip yesterday.", "David"),
    ("Pleased to meet you. I'm Helen.", "Helen"),
    ("You can call me Liz.", "Liz"),
    ("Please call me Bob, everyone does.", "Bob"),
    ("Oh, hi, I'm Carlos. We met at the conference.", "Carlos"),
    ("Hello! I'm Grace, nice to meet you too.", "Grace"),
    ("Hi, I'm Will, Emily's brother.", "Will"),
    ("Hey, I'm Aisha.", "Aisha"),
    ("I'm called Hope, like the feeling.", "Hope"),
    ("My name's Jolene and this is my husband.", "Jolene"),
    # as speech recognition writes them: lower case, no punctuation
    ("hello my name is olga", "Olga"),
    ("um hi i'm sven", "Sven"),
    ("my friends call me tim", "Tim"),
    ("it's nice to meet you i'm mohammed", "Mohammed"),
    ("yeah hi this is wei calling about the apartment", "Wei"),
    ("hi there i am jolene and this is my husband", "Jolene"),
    ("hi my name is emily and i work as a nurse", "Emily"),
    ("nice to meet you i am john and i teach history", "John"),
    ("this is maria speaking", "Maria"),
    ("you can call me al", "Al"),
    # fast talk and the telephone, as Whisper writes them
    ("This is Mark.", "Mark"),
    ("Hi, this is Ana, I'm calling about the flat.", "Ana"),
    ("Hi, Im Niamh, nice to meet you.", "Niamh"),
    ("Hi, Imanna, nice to meet you.", "Anna"),
    ("Hi, Imia, nice to meet you.", "Mia"),
    ("Hi Peter, I'm Susan, the landlord.", "Susan"),
    ("Thanks, I'm Henry, and this is my first visit.", "Henry"),
]

NOT_INTRODUCTIONS = [
    "I'm Chrissie's sister.",
    "Hi, I'm Chrissie's mum.",
    "hey mel i'm caroline's friend from the support group",
    "I am sure that's right.",
    "Thanks Joanna! I'm sure it'll be a blast.",
    "He said, my name is Bond, James Bond.",
    'She goes, "my name is Anna", and walks off.',
    "When I met him he introduced himself: my name is Carlos.",
    "Don't call me Shirley.",
    "Call me tomorrow if you can.",
    "Way to go! I just got a new addition to the family, this is Max!",
    "I want to show you one of my snakes! This is Susie.",
    "Hi! I'm lucky to have you.",
    "Hey Jon! I'm even more pumped now.",
    "Hi Jolene! I'm so glad you came.",
    "Nice to meet you, Sam. I'm glad you made it.",
    "Her name's Coco and she's adorable.",
    "Certainly, my name is AI companion assistant.",
    "certainly my name is ai companion assistant",
    "my name is not important",
    "i am allergic to peanuts",
    "i am fine thanks",
    "and i am today that john is my brother",  # "David", misheard
    "hi i'm just checking in",
    "This is Max, my dog.",
    "Hi, Imogen, how are you?",
]

# What PocketSphinx heard in the eight LJSpeech clips (recorded joined, as tests/test_ljspeech.py does).
LJSPEECH_HEARD = [
    "printing in the only sense with which we are at present concerns differs from most if not from all the arts "
    "and crafts represented in the exhibition",
    "in being a comparatively mater",
    "for all to chinese to the impressions from wood blocks engraved in relief for centuries before the wood "
    "cutters of the netherlands by a similar process",
    "produced the plot books which were the immediate predecessors of the true printed book",
    "the invention of mobile meth or letters in the middle of the fifteenth century may just three be considered "
    "as the invention of the art of printing",
    "and it is worth mentioning passing that as an example of buying type i'm christie",
    "the earliest book printed with multiple types he got married for forty two line bible about fourteen fifty five",
    "has never been surpassed",
]


def heard(text: str) -> str:
    """`text` as lower-case speech recognition gives it: no punctuation but apostrophes."""
    return " ".join(re.sub(r"[^\w\s'’]", " ", text.lower()).split())


def false_namings(texts: list[str]) -> list[tuple[str, str]]:
    """(text, name) for each text that names its speaker, as written and as heard."""
    return [(form, name) for t in texts for form in {t, heard(t)} if (name := self_introduction(form))]


@pytest.mark.parametrize(("text", "name"), INTRODUCTIONS)
def test_a_self_introduction_names_the_speaker(text, name):
    assert self_introduction(text) == name


@pytest.mark.parametrize("text", NOT_INTRODUCTIONS + LJSPEECH_HEARD)
def test_a_name_mentioned_otherwise_names_nobody(text):
    assert self_introduction(text) is None
    assert self_introduction(heard(text)) is None


def test_no_ljspeech_transcript_names_its_reader(shared_data):
    table = shared_data / "asr_small_samples" / "ljspeech" / "metadata.csv"
    rows = [line.split("|") for line in table.read_text().splitlines() if line.strip()]
    texts = [text for _, raw, normalized in rows for text in (raw, normalized)]
    assert len(rows) == 8
    assert false_namings(texts) == []


@pytest.mark.parametrize("asr", ["pocketsphinx-en-us", "configured"])
def test_the_recorder_names_nobody_in_the_ljspeech_clips(asr, cfg, perception, shared_data, tmp_path):
    """The real case: one reader's clips, recognized by PocketSphinx (which once named her from them) and by
    the configured recognizer; she stays unknown_1."""
    from app.audio.asr import load_recognizer
    from app.audio.media import read_audio, write_media

    if asr != "configured":
        need_models(asr)
        perception = dataclasses.replace(perception, asr=load_recognizer(asr, cfg.models_dir))

    folder = shared_data / "asr_small_samples" / "ljspeech"
    parts = [np.zeros(16000, np.float32)]
    for clip in sorted(folder.glob("LJ*.flac")):
        parts += [read_audio(clip), np.zeros(24000, np.float32)]
    write_media(tmp_path / "ljspeech.wav", np.concatenate(parts))
    events, _ = record(cfg, perception, tmp_path / "ljspeech.wav", tmp_path / "m.db")
    assert [e.kind for e in events if e.kind == "speech"], "nothing was heard"
    assert [e.detail for e in events if e.kind == "person_named"] == []


def _locomo_turns(shared_data) -> list[dict]:
    out = []
    for sample in json.loads((shared_data / "locomo" / "locomo10.json").read_text()):
        conv = sample["conversation"]
        sessions = [turns for key, turns in conv.items() if re.fullmatch(r"session_\d+", key)]
        for turn in (turn for turns in sessions for turn in turns):
            other = conv["speaker_b"] if turn["speaker"] == conv["speaker_a"] else conv["speaker_a"]
            out.append({**turn, "other": other})
    return out


def test_no_locomo_turn_names_its_speaker(shared_data):
    """LoCoMo's friends never introduce themselves; 5,882 turns, many naming the other speaker or a pet."""
    turns = _locomo_turns(shared_data)
    naming_someone = [t for t in turns if re.search(rf"\b{re.escape(t['other'].split()[0])}\b", t["text"])]
    print(f"LoCoMo: {len(turns)} turns, {len(naming_someone)} of them name the other speaker")
    assert len(turns) == 5882 and len(naming_someone) > 1000
    assert false_namings([t["text"] for t in turns]) == []


def _memorybank_turns(shared_data) -> list[tuple[str, str | None]]:
    """(text, the name it gives its speaker or None) for every MemoryBank turn. Each user opens their first
    chat by introducing themself; Jack and Luna also say what to call them in their second turn."""
    bank = json.loads((shared_data / "memorybank_siliconfriend" / "memory_bank_en.json").read_text())
    second = {"Jack": "Jack", "Luna": "Lulu"}
    out = []
    for key, entry in bank.items():
        user = key.strip()
        first_day = min(entry["history"])
        for day, pairs in entry["history"].items():
            for i, pair in enumerate(pairs):
                gold = None
                if day == first_day and i == 0:
                    gold = user.split()[0]
                elif day == first_day and i == 1:
                    gold = second.get(user)
                out += [(pair["query"], gold), (pair["response"], None)]
    return out


def test_memorybank_users_are_named_from_their_introductions_and_nothing_else(shared_data):
    turns = _memorybank_turns(shared_data)
    found = {"named right": 0, "missed": 0, "named wrongly": 0}
    for text, gold in turns:
        for form in (text, heard(text)):
            name = self_introduction(form)
            found["named right"] += gold is not None and name == gold
            found["missed"] += gold is not None and name != gold
            found["named wrongly"] += name is not None and name != gold
    introductions = sum(gold is not None for _, gold in turns)
    print(f"MemoryBank: {len(turns)} turns, {introductions} introductions, as written and as heard: {found}")
    assert introductions == 17
    assert found["named wrongly"] == 0
    assert found["named right"] >= 0.9 * 2 * introductions


def test_given_names_said_are_listened_for_but_not_a_word_of_a_place():
    """The names said in a conversation go to the recognizer as hotwords: "my daughter Mia" is one, "San Francisco"
    is none (as "San and Francisco." they once made Whisper drop 20 s of speech), nor a sentence's first word."""
    from app.recorder.writer import given_names_in

    assert given_names_in("I went there with my daughter Mia and Tom.") == ["Mia", "Tom"]
    assert given_names_in("Thanks Mia. Then Anna left.") == ["Mia", "Anna"]
    assert given_names_in("Those who come to San Francisco from the East.") == []
    assert given_names_in("And that was Leo Smith, with Ana.") == ["Ana"]
    assert given_names_in("Maria said so.") == []
