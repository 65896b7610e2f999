"""Sentence embeddings with all-MiniLM-L6-v2 in ONNX (fp32 or int8): tokenizers + onnxruntime, no torch."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from app.devices import onnx_session
from app.errors import ModelError

DIM = 384
MAX_TOKENS = 256  # the model's max_seq_length
BATCH = 32


class TextEmbedder:
    """L2-normalized 384-d embeddings; texts are batched by length so padding stays small.

    On a CPU, `threads` sessions of one thread each take batches side by side: on this 2-core machine that
    embeds 468 LoCoMo turns/s against 386/s for one session with two threads (small matrices do not split
    well across threads). A single batch (a question) runs on one session.
    """

    def __init__(self, model_path: Path, tokenizer_path: Path, device: str = "cpu", threads: int = 1) -> None:
        try:
            self._tok = Tokenizer.from_file(str(tokenizer_path))
            side_by_side = threads if device == "cpu" else 1
            per_session = 1 if side_by_side > 1 else threads
            self._sessions = [onnx_session(model_path, device, per_session) for _ in range(side_by_side)]
        except Exception as e:
            raise ModelError(f"cannot load the text embedder from {model_path}: {e}") from e
        self._tok.enable_truncation(MAX_TOKENS)
        self._tok.no_padding()
        self._counter = Tokenizer.from_file(str(tokenizer_path))
        self._counter.no_truncation()
        self._counter.no_padding()
        self._pool = ThreadPoolExecutor(len(self._sessions), "embed") if len(self._sessions) > 1 else None

    @property
    def window_tokens(self) -> int:
        return MAX_TOKENS

    def count_tokens(self, text: str) -> int:
        """Word pieces in `text` (untruncated): the unit of the dialog context's budgets."""
        return len(self._counter.encode(text, add_special_tokens=False).ids)

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIM), np.float32)
        if not texts:
            return out
        encodings = [e.ids for e in self._tok.encode_batch(list(texts))]
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i]))
        batches = [order[start : start + BATCH] for start in range(0, len(order), BATCH)]
        lanes = min(len(self._sessions), len(batches))

        def lane(n: int) -> None:
            for idx in batches[n::lanes]:
                out[idx] = self._embed(self._sessions[n], [encodings[i] for i in idx])

        if self._pool is None or lanes == 1:
            lane(0)
        else:
            for done in [self._pool.submit(lane, n) for n in range(lanes)]:
                done.result()
        return out

    @staticmethod
    def _embed(session, encodings: list[list[int]]) -> np.ndarray:
        """Mean-pooled, unit-length vectors of one batch of token ids."""
        width = max(len(e) for e in encodings)
        ids = np.zeros((len(encodings), width), np.int64)
        mask = np.zeros((len(encodings), width), np.int64)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc)] = enc
            mask[row, : len(enc)] = 1
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
