"""The faces seen over time, as the recorder's face stage analysed them: the scene at any moment, the one face
that was alone in view while someone spoke, and how far the video has been analysed."""

from __future__ import annotations

import asyncio
import bisect

from app.frames import Face, FaceObservation


class FaceTimeline:
    """Face observations by time; the scene at t is the last observation at or before t (frames that did
    not pass the novelty gate showed the same scene)."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.observations: list[FaceObservation] = []
        self.watermark_s = -1.0  # every frame up to here has been analysed or skipped
        self.finished = False
        self.changed = asyncio.Condition()

    def add(self, obs: FaceObservation) -> None:
        self.times.append(obs.t_s)
        self.observations.append(obs)

    def scene(self, t_s: float, window_s: float) -> tuple[Face, ...]:
        """The faces in view at `t_s`: the last observation at or before it (later frames that did not pass
        the novelty gate showed the same), unless the video ended more than `window_s` before."""
        i = bisect.bisect_right(self.times, t_s) - 1
        if i < 0 or (self.finished and t_s > self.watermark_s + window_s):
            return ()
        return self.observations[i].faces

    def main_face(self, t0: float, t1: float) -> tuple[Face, FaceObservation] | None:
        """The face in the scene at the middle of [t0, t1], else the first seen alone within it; a scene with
        several faces does not say whose the voice is."""
        mid = (t0 + t1) / 2
        i = bisect.bisect_right(self.times, mid) - 1
        candidates = [self.observations[i]] if i >= 0 and self.times[i] >= t0 - 10.0 else []
        j = bisect.bisect_left(self.times, t0)
        candidates += [o for o in self.observations[j : bisect.bisect_right(self.times, t1)] if o.faces]
        for obs in candidates:
            if len(obs.faces) == 1:
                return obs.faces[0], obs
        return None

    def prune(self, before_s: float) -> None:
        """Forget observations that no later utterance can use (keeps the one in force at `before_s`)."""
        cut = max(0, bisect.bisect_right(self.times, before_s) - 1)
        del self.times[:cut], self.observations[:cut]

    async def wait_until(self, t_s: float, timeout_s: float | None) -> None:
        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(lambda: self.finished or self.watermark_s >= t_s), timeout_s)

    async def advance(self, t_s: float | None) -> None:
        async with self.changed:
            if t_s is None:
                self.finished = True
            else:
                self.watermark_s = max(self.watermark_s, t_s)
            self.changed.notify_all()
