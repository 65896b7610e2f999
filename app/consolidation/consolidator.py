"""The memory agent: runs the durable queue — a closed session becomes facts, relations and a summary; a closed
day with enough sessions gets a day summary; a person met often enough gets their global state rebuilt.

Every job reads what it needs, asks the LLM (background priority: dialog pre-empts it), and then writes all
of its results and takes itself off the queue in one transaction. A process killed at any point has written
a job wholly or not at all, so the job runs again and nothing is lost or doubled.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from app.config import Config
from app.consolidation import forgetting
from app.consolidation.extract import Extracted, extract
from app.consolidation.items import Item
from app.consolidation.kinds import planned_span
from app.consolidation.merge import ADD, NOOP, SUPERSEDE, UPDATE, decide
from app.consolidation.salience import load_salience
from app.consolidation.summaries import digest, whole_sentences
from app.errors import AppError, LLMCancelled, LLMUnavailable
from app.facts import FactKind
from app.llm import BACKGROUND, LLMWorker, Request
from app.store.memory import Memory
from app.store.writing import DAY_S, Line, QueuedJob
from app.text.embedder import TextEmbedder
from app.text.words import sentences

_LOGGER = logging.getLogger(__name__)
DAY_TASK = "Summarize this day in two or three sentences: who the user talked with and about what."
PERSON_FACTS_TOKENS = 500  # the facts and relations a global state is written from, strongest first, at most
PERSON_TASK = (
    "Write a short profile of {name} in at most three sentences, as a friend would describe them: who they are, "
    "the people in their life, what they like and do, and what is coming up for them. Use only what is written "
    "here."
)


@dataclass
class Report:
    """What a run of the queue did."""

    jobs: int = 0
    sessions: int = 0
    lines: int = 0
    items: int = 0
    dropped: int = 0
    unsalient: int = 0  # facts the salience model found not worth writing
    actions: dict[str, int] = field(default_factory=lambda: dict.fromkeys((ADD, UPDATE, SUPERSEDE, NOOP), 0))
    relations: int = 0
    summaries: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class Consolidator:
    """Writes memory from the queue with the LLM. One per process; call from one thread."""

    def __init__(self, memory: Memory, llm: LLMWorker, embedder: TextEmbedder, cfg: Config) -> None:
        self.memory, self.llm, self.embedder, self.cfg = memory, llm, embedder, cfg
        self.report = Report()
        self.salience = load_salience(cfg.models.text) if cfg.memory.salience > 0 else None

    def run(
        self,
        stop: threading.Event | None = None,
        progress: Callable[[QueuedJob, int], None] | None = None,
        limit: int | None = None,
    ) -> Report:
        """Run queued jobs until none is left (or `stop` is set, or `limit` jobs ran)."""
        started = time.perf_counter()
        attempts = self.cfg.memory.attempts
        while (stop is None or not stop.is_set()) and (limit is None or self.report.jobs < limit):
            job = self.memory.writing.next_job(attempts)
            if job is None:
                break
            self.memory.writing.job_started(job)
            try:
                self.run_job(job)
            except LLMCancelled:
                break
            except LLMUnavailable:  # the model is off for this run: the job waits, untried, for a later one
                self.memory.writing.job_untried(job)
                raise
            except AppError as e:
                self.report.failed += 1
                self.memory.writing.job_failed(job, str(e))
                _LOGGER.warning(
                    "memory writing: %s %d failed (try %d of %d): %s", job.kind, job.ref, job.attempts + 1, attempts, e
                )
            self.report.jobs += 1
            if progress:
                progress(job, self.memory.writing.queue_state(attempts)["pending"])
        self.report.seconds += time.perf_counter() - started
        return self.report

    def run_job(self, job: QueuedJob) -> None:
        {"session": self._session, "day": self._day, "person": self._person}[job.kind](job)

    # sessions
    def _session(self, job: QueuedJob) -> None:
        lines = self.memory.writing.transcript(job.ref)
        c = self.cfg.memory
        known = set(self.memory.people.person_ids())
        refused = self.memory.writing.refused_names()
        chunks = [lines[i : i + c.chunk_lines] for i in range(0, len(lines), c.chunk_lines)]
        results = [
            extract(self.llm, chunk, known, refused, c.facts_per_line, c.item_tokens, c.summary_tokens, c.extractor)
            for chunk in chunks
        ]
        items = [it for r in results for it in r.items]
        vectors = self.embedder([it.what for it in items]) if items else []
        worth = self._worth_writing(items, vectors)
        if c.extractor == "statements" and not all(worth):  # the diary line says only what is written
            results = self._digested(chunks, results, worth)
        summaries = self.embedder([r.summary for r in results]) if lines else []
        with self.memory.batch():
            touched: set[int] = set()
            for item, vector, keep in zip(items, vectors, worth, strict=True):
                if keep:
                    touched.add(self._apply(item, vector))
            for chunk, result, vector in zip(chunks, results, summaries, strict=True):
                if result.summary:
                    self.memory.writing.write_summary(
                        "session",
                        chunk[0].t_start,
                        chunk[-1].t_start,
                        result.summary,
                        vector,
                        utterances=[i for ln in chunk for i in ln.ids],
                        session_id=job.ref,
                    )
                    self.report.summaries += 1
            touched |= self._close_passed_plans(self.memory.writing.last_spoken())
            self.memory.writing.job_done(job)
            forgetting.fade(self.memory, c, sorted(touched))
            self._queue_followers(lines)
        self._count(results, len(lines))

    def _worth_writing(self, items: list[Item], vectors) -> list[bool]:
        """Whether each item is written: a relation always, a fact when the salience model scores it at least
        `memory.salience` (app/consolidation/salience.py); those left out are counted as `unsalient`."""
        if self.salience is None or not items:
            return [True] * len(items)
        scores = self.salience(vectors)
        cut = self.cfg.memory.salience
        worth = [it.kind is FactKind.RELATION or s >= cut for it, s in zip(items, scores, strict=True)]
        self.report.unsalient += worth.count(False)
        return worth

    @staticmethod
    def _digested(chunks: list[list[Line]], results: list[Extracted], worth: list[bool]) -> list[Extracted]:
        """The results with the diary line of each chunk that lost a fact to the salience model written again
        from the facts it keeps."""
        out, k = [], 0
        for chunk, result in zip(chunks, results, strict=True):
            keep = worth[k : k + len(result.items)]
            k += len(result.items)
            kept = [it for it, w in zip(result.items, keep, strict=True) if w]
            out.append(replace(result, summary=digest(chunk, kept)) if len(kept) < len(keep) else result)
        return out

    def _apply(self, item: Item, vector) -> int:
        """Write one checked item; returns the person it is about."""
        m, round_ = self.memory, self.memory.writing.memory_round()
        pid = item.line.person_id if item.line.person == item.who else m.writing.mentioned_person(item.who)
        if item.kind is FactKind.RELATION:
            other = item.line.person_id if item.line.person == item.other else m.writing.mentioned_person(item.other)
            _, new = m.writing.write_relation(pid, item.what.lower(), other, list(item.line.ids), item.valid_from)
            self.report.relations += new
            return pid
        decision = decide(item, vector, m.writing.held_facts(pid), self.cfg.memory.duplicate, self.cfg.memory.related)
        self.report.actions[decision.action] += 1
        if decision.action == NOOP:
            return pid
        if decision.action == UPDATE:
            longer = len(item.what) > len(decision.fact.value)
            m.writing.restate_fact(
                decision.fact.id,
                list(item.line.ids),
                item.line.t_start,
                round_,
                item.what if longer else None,
                vector if longer else None,
            )
            return pid
        fid = m.writing.insert_fact(
            pid,
            item.kind,
            item.key,
            item.what,
            item.polarity,
            list(item.line.ids),
            item.valid_from,
            item.line.t_start,
            round_,
            vector,
        )
        if decision.action == SUPERSEDE:
            m.writing.supersede_fact(decision.fact.id, fid, item.valid_from or item.line.t_start)
        return pid

    def _close_passed_plans(self, now: float) -> set[int]:
        """Each plan whose day (or month) is over by `now` — the latest line the memory heard — becomes an event
        that says what was planned ("David was planning a trip to Paris for his birthday"), dated on the plan's
        day and resting on the same lines; the plan is closed when its day ended and stays as history. Returns
        the people whose facts changed."""
        m, touched = self.memory, set()
        over = [
            (plan, span)
            for plan in m.writing.plans_held()
            if (span := planned_span(plan.value, plan.said, plan.valid_from)) is not None and span[1] <= now
        ]  # a plan with no day holds until something supersedes it
        if not over:
            return touched
        round_, vectors = m.writing.memory_round(), self.embedder([text for _, (_, _, text) in over])
        for (plan, (start, end, text)), vector in zip(over, vectors, strict=True):
            fid = m.writing.insert_fact(
                plan.person_id,
                FactKind.EVENT,
                plan.key,
                text,
                plan.polarity,
                plan.sources,
                start,
                plan.said,
                round_,
                vector,
            )
            m.writing.supersede_fact(plan.id, fid, end)
            if plan.person_id is not None:
                touched.add(plan.person_id)
        return touched

    def _queue_followers(self, lines: list[Line]) -> None:
        """Days before the latest one with enough session summaries, and people met often enough, get a job."""
        m, c = self.memory, self.cfg.memory
        latest = m.writing.last_spoken()
        for day in {int(ln.t_start // DAY_S) for ln in lines}:
            if day < int(latest // DAY_S) and m.writing.day_summary_due(day, c.day_min):
                m.writing.enqueue("day", day)
        for pid in {ln.person_id for ln in lines if ln.person_id is not None and ln.person_id > 0}:
            state = m.writing.global_state(pid)
            if len(m.writing.summaries_with(pid, state["t_end"] if state else 0.0)) >= c.person_every:
                m.writing.enqueue("person", pid)

    def _count(self, results: list[Extracted], lines: int) -> None:
        r = self.report
        r.sessions += 1
        r.lines += lines
        for x in results:
            r.items += len(x.items)
            r.dropped += x.dropped
            r.prompt_tokens += x.prompt_tokens
            r.completion_tokens += x.completion_tokens

    # higher levels
    def _summarize(self, context: str, task: str) -> str:
        reply = self.llm.complete(
            Request(
                ({"role": "system", "content": context}, {"role": "user", "content": task}),
                max_tokens=self.cfg.memory.summary_tokens * 2,
            ),
            BACKGROUND,
        )
        self.report.prompt_tokens += reply.usage.prompt_tokens - reply.usage.cached_tokens
        self.report.completion_tokens += reply.usage.completion_tokens
        return whole_sentences(reply.text)

    def _day(self, job: QueuedJob) -> None:
        t0 = job.ref * DAY_S
        parts = self.memory.writing.session_summaries("t_start >= ? AND t_start < ?", (t0, t0 + DAY_S))
        text = (
            self._summarize(
                "Summaries of the user's conversations that day:\n" + "\n".join(f"- {p['text']}" for p in parts),
                DAY_TASK,
            )
            if parts
            else ""
        )
        with self.memory.batch():
            if text:
                vector = self.embedder([text])[0]
                self.memory.writing.write_summary(
                    "day", parts[0]["t_start"], parts[-1]["t_end"], text, vector, children=[p["id"] for p in parts]
                )
                self.report.summaries += 1
            self.memory.writing.job_done(job)

    def _within(self, texts: list[str], budget: int) -> list[str]:
        """The first of `texts` that together hold at most `budget` tokens (at least one)."""
        kept, used = [], 0
        for text in texts:
            used += self.embedder.count_tokens(text)
            if kept and used > budget:
                break
            kept.append(text)
        return kept

    def _person(self, job: QueuedJob) -> None:
        m = self.memory
        name = m.people.person_name(job.ref)
        state = m.writing.global_state(job.ref)
        new = m.writing.summaries_with(job.ref, state["t_end"] if state else 0.0)
        text = ""
        if name and new:
            before = f"Known about {name} so far: {state['text']}\n" if state else ""
            known = m.derived.profile(job.ref)  # the strongest first
            facts = self._within(
                [f"- {f['value']} ({f['kind']})" for f in known["facts"]]
                + [f"- {r['subject']} is {r['object']}'s {r['relation']}" for r in known["relations"]],
                PERSON_FACTS_TOKENS,
            )
            # the newest summaries that fit in half the model's context, in the order they were said
            new = new[len(new) - len(self._within([p["text"] for p in reversed(new)], self.cfg.llm.context // 2)) :]
            context = (
                before
                + (f"Facts about {name}:\n" + "\n".join(facts) + "\n" if facts else "")
                + "Summaries of conversations with them:\n"
                + "\n".join(f"- {p['text']}" for p in new)
            )
            said = sentences(self._summarize(context, PERSON_TASK.format(name=name)))
            text = " ".join(said[:3])  # as asked: the 1.5B can run on, "She is a great ... She is a great ..."
        with m.batch():
            if text:
                children = ([state["id"]] if state else []) + [p["id"] for p in new]
                start = state["t_start"] if state else new[0]["t_start"]
                m.writing.write_summary(
                    "person",
                    start,
                    new[-1]["t_end"],
                    text,
                    self.embedder([text])[0],
                    children=children,
                    person_id=job.ref,
                )
                self.report.summaries += 1
            m.writing.job_done(job)
