"""What one recording did: the recorder's report, the CLI's summary and JSON, the run's exit code."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class RunSummary:
    source: str
    duration_s: float = 0.0  # audio seen
    speech_s: float = 0.0
    utterances: int = 0
    people: int = 0  # distinct people heard in this run
    new_people: int = 0
    skipped: int = 0  # segments or utterances dropped after a failure (each logged)
    unstored: int = 0  # utterances heard after the disk filled up, which could not be kept
    frames_analysed: int = 0
    eager_used: int = 0  # segments whose words were recognised ahead, before the VAD closed them (`eager`)
    eager_wasted: int = 0  # recognitions ahead that were not used: the speaker went on after the pause
    runs_read_again: int = 0  # voices' runs Whisper passed over in a stretch of several, read again on their own
    turns_given_again: int = 0  # turns given to another person once their whole conversation was clustered
    voices_split: int = 0  # voices of a conversation the second speaker model found to be two (turns.check_voice)
    frames_dropped: int = 0
    wall_s: float = 0.0
    memory_jobs: int = 0  # memory-writing jobs done in the background (memory.background)
    memory_s: float = 0.0
    memory_error: str | None = None  # why background memory writing stopped, if it did
    llm_faults: list[str] = field(default_factory=list)  # the language model's failures: its process died, ...
    errors: list[str] = field(default_factory=list)
    exit_code: int = 0  # the CLI's exit status: 0, or the code of the first error

    @property
    def rtf(self) -> float:
        """Processing time over audio time: below 1 keeps up with real time."""
        return self.wall_s / self.duration_s if self.duration_s else 0.0

    def as_dict(self) -> dict:
        return {
            "source": self.source,
            "duration_s": round(self.duration_s, 2),
            "speech_s": round(self.speech_s, 2),
            "utterances": self.utterances,
            "people": self.people,
            "new_people": self.new_people,
            "skipped": self.skipped,
            "unstored": self.unstored,
            "frames_analysed": self.frames_analysed,
            "eager_used": self.eager_used,
            "eager_wasted": self.eager_wasted,
            "runs_read_again": self.runs_read_again,
            "turns_given_again": self.turns_given_again,
            "voices_split": self.voices_split,
            "frames_dropped": self.frames_dropped,
            "wall_s": round(self.wall_s, 2),
            "real_time_factor": round(self.rtf, 3),
            "memory_jobs": self.memory_jobs,
            "memory_s": self.memory_s,
            "memory_error": self.memory_error,
            "llm_faults": self.llm_faults,
            "errors": self.errors,
        }
