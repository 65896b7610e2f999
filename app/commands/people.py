"""`people` (list, rename, merge, split) and `enroll`: who the memory knows, corrected by hand."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from app import views
from app.commands import open_memory, print_json, when
from app.config import Config
from app.errors import MediaError

MIN_ENROL_SPEECH_S = 1.0


def register(add) -> None:
    p = add("people", "list the people the memory knows, or correct them", cmd_people)
    p.add_argument("--json", action="store_true")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    w = actions.add_parser("show", help="everything known about one person, with provenance")
    w.add_argument("name")
    w.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="as one JSON object")
    r = actions.add_parser("rename", help="give someone their name")
    r.add_argument("old")
    r.add_argument("new")
    m = actions.add_parser("merge", help="two entries are one person: keep the first")
    m.add_argument("keep")
    m.add_argument("other")
    s = actions.add_parser("split", help="some of a person's utterances were someone else's")
    s.add_argument("name")
    s.add_argument("--utterances", required=True, help="comma-separated utterance ids (see export)")
    s.add_argument("--into", dest="new_name", help="the other person's name (default unknown_N)")
    p = add("enroll", "introduce someone by a recording of their voice and/or a photo", cmd_enroll)
    p.add_argument("--name", required=True)
    p.add_argument("--audio", type=Path, help="speech of that person alone (any format, at least 1 s)")
    p.add_argument("--image", type=Path, help="a photo of that person (the largest face is used)")
    p.add_argument("--me", action="store_true", help="this is the device's owner: who 'I' is in a question")


def cmd_people(args: argparse.Namespace, cfg: Config) -> int:
    with open_memory(args, cfg) as memory:
        if args.action == "show":
            return _show(args, memory)
        if args.action == "rename":
            memory.people.rename_person(args.old, args.new)
            sys.stdout.write(f"{args.old} is now {args.new}\n")
        elif args.action == "merge":
            moved = memory.people.merge_people(args.keep, args.other)
            sys.stdout.write(f"merged {args.other} into {args.keep} ({moved} utterances moved)\n")
        elif args.action == "split":
            ids = [int(x) for x in args.utterances.split(",") if x.strip()]
            person = memory.people.split_person(args.name, ids, args.new_name)
            sys.stdout.write(f"{person.utterances} utterances of {args.name} are now {person.name}'s\n")
        else:
            out = views.people(memory)
            if args.json:
                print_json(out)
            for p in [] if args.json else out["people"]:
                sys.stdout.write(f"{p['id']:4d}  {p['name']:20s} {p['utterances']} utterances\n")
    return 0


def _show(args: argparse.Namespace, memory) -> int:
    """The person's profile: who, consent, when seen, their global state, facts (with history), relations,
    summaries and latest words, each citing the utterances it came from."""
    out = views.person(memory, args.name)
    profile, facts, relations = out, out["facts"], out["relations"]
    if args.json:
        print_json(out)
        return 0
    seen = (
        f"first seen {when(profile['first_seen'], 'seconds')}, last {when(profile['last_seen'], 'seconds')}"
        if (profile["first_seen"])
        else "only mentioned"
    )
    sys.stdout.write(
        f"{profile['name']} (consent {profile['consent']}): {profile['utterances']} utterances in "
        f"{profile['sessions']} sessions, {seen}\n"
    )
    for m in profile["summaries"][:3]:
        sys.stdout.write(f"  summary {m['id']}: {m['text']}\n")
    for f in facts:
        state = " [superseded]" if f["valid_to"] else " [faded]" if f["faded"] else ""
        sys.stdout.write(f"  fact {f['id']}{state}: {f['value']} (from {','.join(map(str, f['sources']))})\n")
    for r in relations:
        sys.stdout.write(
            f"  relation {r['id']}: {r['subject']} — {r['relation']} — {r['object']} "
            f"(from {','.join(map(str, r['sources']))})\n"
        )
    for u in profile["latest"]:
        sys.stdout.write(f"  said [{u['id']}] {when(u['t_start'], 'seconds')}: {u['text']}\n")
    return 0


def _voice_key(cfg: Config, path: Path) -> tuple[np.ndarray, float]:
    from app.audio.media import read_audio
    from app.audio.vad import Reframer, SpeechSegmenter
    from app.recorder.perception import load_vad, load_voice

    audio = read_audio(path, cfg.audio.min_rate_hz)
    vad = load_vad(cfg)
    segmenter = SpeechSegmenter(cfg.vad, vad.window_samples)
    segments = [s for w in Reframer(vad.window_samples).push(audio) for s in segmenter.push(w, vad(w))]
    segments += segmenter.flush()
    speech_s = sum(s.duration_s for s in segments)
    if speech_s < MIN_ENROL_SPEECH_S:
        raise MediaError(
            f"{path}: {speech_s:.1f} s of speech found; enrolment needs at least {MIN_ENROL_SPEECH_S:.0f} s"
        )
    return load_voice(cfg)(np.concatenate([s.audio for s in segments])), speech_s


def _face_key(cfg: Config, path: Path):
    import cv2

    from app.recorder.perception import load_faces

    image = cv2.imread(str(path)) if path.is_file() else None
    if image is None:
        raise MediaError(f"{path}: not a readable image")
    analyzer = load_faces(cfg)
    faces = analyzer(image, max_faces=8)
    if not faces:
        raise MediaError(f"{path}: no face found")
    if len(faces) > 1:
        sys.stderr.write(f"{path}: {len(faces)} faces; the largest was used\n")
    if faces[0].defect:
        raise MediaError(f"{path}: the face is too {faces[0].defect.replace('turned', 'turned away')} to enrol")
    return faces[0], analyzer.name


def cmd_enroll(args: argparse.Namespace, cfg: Config) -> int:
    if args.audio is None and args.image is None and not args.me:
        raise MediaError("enroll needs --audio, --image or both (or --me alone, to name the owner)")
    voice = _voice_key(cfg, args.audio) if args.audio else None  # checked before anyone is created
    face = _face_key(cfg, args.image) if args.image else None
    with open_memory(args, cfg, create=True) as memory, memory.batch():
        pid = memory.people.person_id(args.name)
        pid = pid if pid is not None else memory.people.add_person(args.name).id
        memory.people.set_consent(args.name, "given")  # enrolling someone is recording their consent
        if voice is not None:
            memory.people.add_key("voice", pid, voice[0], voice[1], cfg.identity.max_keys, cfg.models.voice)
        if face is not None:
            memory.people.add_key("face", pid, face[0].embedding, face[0].quality, cfg.identity.max_keys, face[1])
        if args.me:
            memory.people.set_owner(args.name)
    parts = ([f"voice ({voice[1]:.1f} s of speech)"] if voice else []) + (["face"] if face else [])
    parts += ["as this device's owner"] if args.me else []
    sys.stdout.write(f"enrolled {args.name}: {' and '.join(parts)}\n")
    return 0
