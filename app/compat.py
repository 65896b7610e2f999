"""What Python 3.10 (the Jetson's JetPack 6) lacks and the code uses."""

from __future__ import annotations

from enum import Enum

try:
    from enum import StrEnum
except ImportError:  # Python 3.10: the same, spelled out (str() and format() give the value)

    class StrEnum(str, Enum):  # type: ignore[no-redef]
        def __str__(self) -> str:
            return str(self.value)


__all__ = ["StrEnum"]
