"""Errors meant for the user: a stable code and one line of explanation."""


class AppError(Exception):
    """Base error. `str(err)` is the one line shown to the user; `code` is stable for scripts. `see`: the
    command that helps (`people`, `people merge`), which the command line names after the message and an HTTP
    answer leaves out."""

    code = "error"
    exit_code = 1

    def __init__(self, message: str = "", see: str | None = None) -> None:
        super().__init__(message)
        self.see = see


class ConfigError(AppError):
    code = "config"
    exit_code = 2


class ModelError(AppError):
    """A model file is missing, corrupt or cannot be loaded."""

    code = "model"
    exit_code = 3


class MediaError(AppError):
    """An input file or device cannot be read (corrupt, truncated, empty, unsupported)."""

    code = "media"
    exit_code = 4


class StoreError(AppError):
    """The encrypted memory cannot be opened or written."""

    code = "store"
    exit_code = 5


class NotFoundError(StoreError):
    """No such person, session or item in the memory (HTTP 404)."""

    code = "not_found"


class StoreKeyError(StoreError):
    """No key, or the wrong key, for the encrypted memory."""

    code = "key"
    exit_code = 6


class DeviceError(AppError):
    """A capture device (microphone, camera) is absent or failed."""

    code = "device"
    exit_code = 7


class DiskFullError(StoreError):
    """The disk (or the file-size limit) is full: recording stops, nothing committed is lost."""

    code = "disk_full"
    exit_code = 8


class LLMError(AppError):
    """The language model is missing, unreachable, cancelled or gave an unusable reply."""

    code = "llm"
    exit_code = 9


class LLMCancelled(LLMError):
    """A generation was cancelled (barge-in, a newer question): not a failure of the model."""

    code = "llm_cancelled"


class LLMCutOff(LLMError):
    """A schema-constrained reply reached its token limit before its JSON was complete."""

    code = "llm_cut_off"


class LLMCrashed(LLMError):
    """The language model's process died (a native fault, kill -9, out of memory): the job may run again."""

    code = "llm_crashed"


class LLMUnavailable(LLMError):
    """The language model is off for this run (its process kept dying): jobs wait for a later run."""

    code = "llm_unavailable"
