"""The sections about what is kept and what is made of it: the store, retention, privacy, recall, the language
model, answers, memory writing, the local service and the voice companion."""

from __future__ import annotations

from dataclasses import dataclass

from app.config.base import opt


@dataclass(frozen=True)
class StoreConfig:
    """The encrypted memory database."""

    cache_mb: int = opt(
        256, "SQLCipher page cache (MiB); encrypted scans decrypt pages again without it", lo=2, hi=16384
    )
    kdf_log2_n: int = opt(15, "scrypt cost: N = 2**this (memory = 128 * 8 * N bytes)", lo=10, hi=22)
    ann_min_utterances: int = opt(
        30000,
        "from this many utterances on, dense search uses the FAISS IVF-SQ8 index instead of an exact scan",
        lo=100,
        hi=10**9,
    )
    ann_nprobe: int = opt(128, "inverted lists the IVF index probes per query", lo=1, hi=65536)
    ann_rescore: int = opt(
        0, "IVF candidates re-scored exactly per result wanted (0: the 8-bit scores, no store reads)", lo=0, hi=100
    )


@dataclass(frozen=True)
class RetentionConfig:
    """How long raw media (speech audio, face frames) stays; the transcripts and derived memory stay."""

    raw_hours: float = opt(24.0, "raw media older than this (since it was stored) is deleted (h)", lo=0.0, hi=87600.0)
    audio_hours: float = opt(
        -1.0, "speech audio clips: negative means raw_hours, 0 keeps none (h)", lo=-1.0, hi=87600.0
    )
    frame_hours: float = opt(-1.0, "face frames: negative means raw_hours, 0 keeps none (h)", lo=-1.0, hi=87600.0)
    max_gb: float = opt(2.0, "storage budget for raw media; beyond it the oldest go first (GB)", lo=0.0, hi=100000.0)
    sweep_s: float = opt(60.0, "how often the sweeper runs while recording (s)", lo=1.0, hi=86400.0)

    def keep_s(self, kind: str) -> float:
        """Seconds a media kind is kept (0: not stored at all)."""
        hours = {"audio": self.audio_hours, "frame": self.frame_hours}[kind]
        return 3600.0 * (self.raw_hours if hours < 0 else hours)


@dataclass(frozen=True)
class PrivacyConfig:
    """Whose data may be kept."""

    consent: str = opt(
        "implicit",
        "implicit: everyone heard is remembered; required: people who have not "
        "consented (python -m app consent NAME given) keep no raw media and no face or voice "
        "keys beyond the current session, and their words are kept without them",
        choices=("implicit", "required"),
    )


@dataclass(frozen=True)
class RecallConfig:
    """Hybrid dense + BM25 search (app/ask/recall.py); weights chosen on LoCoMo (eval locomo)."""

    top_k: int = opt(5, "results returned by ask", lo=1, hi=100)
    candidates: int = opt(100, "candidates taken from each of dense and BM25 search", lo=1, hi=1000)
    bm25_weight: float = opt(
        0.2, "weight of the BM25 score (relative to the best candidate's) added to cosine similarity", lo=0.0, hi=10.0
    )
    person_boost: float = opt(0.25, "added to the score of utterances by a person the question names", lo=0.0, hi=10.0)
    graph_hops: int = opt(2, "relations followed from the people a question names or implies", lo=0, hi=5)
    graph_decay: float = opt(0.7, "the person boost is multiplied by this per relation followed", lo=0.0, hi=1.0)
    session_weight: float = opt(
        0.4, "weight of the best score in an utterance's session added to its own (0: turns alone)", lo=0.0, hi=2.0
    )
    session_bm25_weight: float = opt(
        0.15,
        "weight of its session's BM25 score (sessions as documents, relative to the best) added to an utterance's",
        lo=0.0,
        hi=2.0,
    )
    context_weight: float = opt(
        0.5,
        "weight of the turns just before and after an utterance in its dense score (0: the turn alone)",
        lo=0.0,
        hi=2.0,
    )
    written_weight: float = opt(
        0.1,
        "weight of the best matching fact or summary's similarity added to the turns it cites (0: turns alone)",
        lo=0.0,
        hi=2.0,
    )
    written_k: int = opt(
        10, "facts and summaries matched per question whose cited turns join the candidates", lo=0, hi=100
    )


@dataclass(frozen=True)
class LLMConfig:
    """The local language model (app/llm/): llama.cpp on this machine, or an OpenAI-compatible server."""

    backend: str = opt(
        "llama-cpp",
        "llama-cpp: a GGUF model on this machine; openai: an OpenAI-compatible server at llm.url (llama.cpp "
        "server, vLLM, Ollama), its bearer token in $APP_LLM_API_KEY if it wants one",
        choices=("llama-cpp", "openai"),
    )
    model: str = opt(
        "qwen2.5-coder-1.5b",
        "llama-cpp: a registry name (qwen2.5-coder-0.5b, qwen2.5-coder-1.5b) or the path of a .gguf file; "
        "openai: the model name the server serves",
    )
    url: str = opt("", "the server's base URL for llm.backend openai, e.g. http://127.0.0.1:8080/v1")
    process: str = opt(
        "child",
        "llama-cpp: child runs the model in a supervised process of its own, so a native fault never stops the "
        "recorder; in-process runs it in this process (tests and benchmarks)",
        choices=("child", "in-process"),
    )
    max_deaths: int = opt(
        3, "deaths in a row of the model's process after which the model is off for the run", lo=1, hi=100
    )
    context: int = opt(4096, "context window of the in-process model (tokens)", lo=512, hi=131072)
    threads: int = opt(
        0,
        "CPU threads for the in-process model; 0: device.threads, or 1 while the recorder runs beside it",
        lo=0,
        hi=64,
    )
    dialog_threads: int = opt(
        0,
        "CPU threads for a reply someone waits for (an answer, a greeting); background memory writing keeps "
        "llm.threads (one beside the recorder); 0: device.threads",
        lo=0,
        hi=64,
    )
    gpu_layers: int = opt(
        -1,
        "layers offloaded to the GPU; -1: all of them on --device cuda|jetson when llama.cpp was built with GPU "
        "support, none on cpu",
        lo=-1,
        hi=1000,
    )
    nice: int = opt(10, "scheduling niceness of the LLM thread, so capture always wins the CPU (0-19)", lo=0, hi=19)
    prefix_cache: int = opt(
        4, "prompt prefixes (instructions + a person's profile) whose evaluated state is kept", lo=0, hi=64
    )
    kept_prompts: int = opt(
        24,
        "prompts evaluated ahead whose state is kept (the voice companion's recent lines, ~3 MB each with the 1.5B)",
        lo=0,
        hi=256,
    )
    timeout_s: float = opt(60.0, "llm.backend openai: time allowed for the server to answer (s)", lo=1.0, hi=3600.0)
    retries: int = opt(2, "llm.backend openai: retries after a connection failure or a 5xx answer", lo=0, hi=10)


@dataclass(frozen=True)
class AnswerConfig:
    """Grounded answers (app/ask/answer.py): code gathers, ranks and checks the lines; the model reads a few of them."""

    candidates: int = opt(6, "lines gathered and ranked for a question", lo=1, hi=20)
    chosen: int = opt(
        2,
        "most lines the answer is read from (the best-ranked ones, or those the model picks); the first alone "
        "when it holds all the question asks about",
        lo=1,
        hi=6,
    )
    listed: int = opt(
        4,
        "most lines the answer is read from when the question asks for several things, each perhaps said in a "
        "line of its own ('what sports does Emily play?', 'where has she worked?', 'how many')",
        lo=1,
        hi=6,
    )
    list_reads: int = opt(
        2,
        "a question that asks for several things is read this many times when the first reading held, each time "
        "from the next `listed` lines; the things each reading's lines hold join the answer (1: one reading)",
        lo=1,
        hi=4,
    )
    more: int = opt(
        0,
        "when what is read from the chosen lines gives no answer a line holds, they are read again with this many "
        "of the next-ranked lines beside them (0: not)",
        lo=0,
        hi=6,
    )
    select: str = opt(
        "retriever",
        "retriever: the best-ranked lines are read; model: the language model first picks among the candidates "
        "(measured worse and slower with the 0.5B and 1.5B models: README, Answers)",
        choices=("retriever", "model"),
    )
    beside: str = opt(
        "off",
        "when what is read from the chosen lines gives no answer a line holds, they are read again with their "
        "speaker's turns just before and after them in the conversation (an answer is often said in the turn after "
        "the one that names what is asked): off, first (the best line's) or all",
        choices=("off", "first", "all"),
    )
    read_tokens: int = opt(32, "longest answer read from the chosen lines (tokens)", lo=4, hi=512)
    guesses: bool = opt(
        True,
        "a question that asks for a likely guess ('would Emily enjoy a tennis match?', 'what might John's job "
        "be?') is answered from what the lines about that person say, worded as a guess ('Probably ...') and citing "
        "the lines it was read from; off: such questions get I don't know unless a line says the answer",
    )
    verify: str = opt(
        "names",
        "after the word check, the model is asked (true or false under a grammar) whether the cited line says that "
        "the answer answers the question, and false is I don't know: names (an answer that is only people's names, "
        "whose role the word check cannot see), all, or off",
        choices=("names", "all", "off"),
    )


@dataclass(frozen=True)
class MemoryConfig:
    """Memory writing (app/consolidation/): extraction, merging, summaries and forgetting on the local LLM."""

    background: bool = opt(
        True, "write memory from closed sessions in the recorder's background while it runs (else: `consolidate`)"
    )
    extractor: str = opt(
        "statements",
        "statements: each line's statements become atomic facts of whom they are about (code; the model writes day "
        "summaries and profiles); "
        "llm: the model reads the lines and writes the facts (measured worse with the 0.5B: README)",
        choices=("statements", "llm"),
    )
    chunk_lines: int = opt(16, "transcript lines the model reads per extraction call", lo=2, hi=200)
    facts_per_line: int = opt(2, "most facts the model may take from one transcript line", lo=1, hi=10)
    item_tokens: int = opt(40, "generation budget per fact (tokens)", lo=8, hi=400)
    summary_tokens: int = opt(80, "longest summary the model writes (tokens)", lo=16, hi=1024)
    salience: float = opt(
        0.15,
        "a fact scored below this by the salience model (app/consolidation/salience.py: what people note down from "
        "chat, over the fact's text embedding) is not written; its line stays in the transcript (0: all are written)",
        lo=0.0,
        hi=1.0,
    )
    duplicate: float = opt(
        0.80, "similarity at or above which a new item restates a held fact (merged: provenance added)", lo=0.0, hi=1.0
    )
    related: float = opt(
        0.60,
        "similarity at or above which a new item that changes a number, negation or polarity supersedes",
        lo=0.0,
        hi=1.0,
    )
    day_min: int = opt(2, "session summaries a day needs before it gets a day summary", lo=1, hi=100)
    person_every: int = opt(
        5, "new session summaries with a person that rebuild their global state (MOOM's θ = 5)", lo=1, hi=100
    )
    attempts: int = opt(3, "tries of one queued job before it is set aside with its error", lo=1, hi=100)
    alpha: float = opt(0.1, "forgetting: weight of temporal decay (MOOM's α)", lo=0.0, hi=10.0)
    beta: float = opt(0.9, "forgetting: weight of recall reinforcement (MOOM's β)", lo=0.0, hi=10.0)
    gamma: float = opt(
        1.0, "forgetting: decay rate per round, a round being a conversation session (MOOM's γ)", lo=0.0, hi=10.0
    )
    recall_k: int = opt(
        9, "forgetting: facts reinforced per retrieval; the next as many are inhibited (MOOM's k)", lo=1, hi=100
    )
    capacity: int = opt(
        200,
        "forgetting: facts per person kept in the profile and search; the weakest beyond it fade",
        lo=1,
        hi=100000,
    )


@dataclass(frozen=True)
class ServiceConfig:
    """The local API (`serve`, `run --serve`): loopback only unless told otherwise, a bearer token on every route."""

    host: str = opt("127.0.0.1", "address to listen on; anything but loopback needs `serve --public`")
    port: int = opt(8765, "TCP port", lo=1, hi=65535)
    max_body_kb: int = opt(4096, "largest request body accepted (KiB); a bigger one gets 413", lo=1, hi=1048576)
    readers: int = opt(2, "connections (and threads) serving reads side by side", lo=1, hi=16)
    events_kept: int = opt(
        10000, "events kept in RAM for subscribers that reconnect with Last-Event-ID", lo=100, hi=1000000
    )


@dataclass(frozen=True)
class CompanionConfig:
    """The voice companion (`run --companion`): who is answered, barge-in, echo, speech out, greetings."""

    wake: str = opt(
        "hey memory, okay memory, hey computer",
        "comma-separated phrases that address the companion at the start or end of an utterance (other speech "
        "is only remembered; chosen so that the embedded recognizer hears them); empty: push-to-talk only",
    )
    voice: str = opt(
        "piper",
        "text-to-speech: piper (the joe voice under models/), else espeak-ng, else flite",
        choices=("piper", "espeak-ng", "flite"),
    )
    barge_in: bool = opt(True, "speech over a reply (being generated or played) stops it")
    onset_ms: int = opt(
        64, "speech above the VAD threshold this long (ms, in 32-ms windows) is an onset (barge-in)", lo=32, hi=1000
    )
    echo_cancel: bool = opt(True, "cancel the companion's own voice in the microphone (WebRTC AEC3)")
    self_voice: float = opt(
        0.80,
        "an utterance heard while the companion spoke whose voice is this close (cosine) to the companion's "
        "own, or whose words are mostly what it said, is its echo: never stored, never answered",
        lo=0.0,
        hi=1.0,
    )
    wearer: str = opt(
        "", "the wearer's name: never greeted, and who 'I' and 'my' are in a question that names no one asking"
    )
    greet: bool = opt(True, "greet a known person who is back after greet_absence_h")
    greet_absence_h: float = opt(2.0, "hours away after which a returning person is greeted", lo=0.0, hi=720.0)
    greet_gap_s: float = opt(60.0, "at most one greeting this often (seconds)", lo=0.0, hi=86400.0)
    answer_ahead: bool = opt(
        True,
        "answer a request from its words recognised while the VAD still waits out the silence after them (said "
        "only once the utterance closes with the same words; speech before that drops it)",
    )
    keep_lines: int = opt(
        24,
        "the latest lines whose reading the model evaluates ahead, one at a time while nobody speaks, so a question "
        "that reads one of them evaluates only its own words (kept up to llm.kept_prompts; 0: none)",
        lo=0,
        hi=256,
    )
    answer_timeout_s: float = opt(60.0, "longest wait for the next token of a spoken answer", lo=1.0, hi=600.0)
    tail_s: float = opt(
        30.0, "after a replayed file ends, keep listening this long while the companion still talks", lo=0.0, hi=600.0
    )
