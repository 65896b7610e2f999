"""Sentence embeddings with all-MiniLM-L6-v2 in ONNX (fp32 or int8): tokenizers + onnxruntime, no torch."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from app.devices import onnx_session
from app.errors import ModelError

DIM = 384
MAX_TOKENS = 256  # the model's max_seq_length
BATCH = 32


class TextEmbedder:
    """L2-normalized 384-d embeddings; texts are batched by length so padding stays small."""

    def __init__(self, model_path: Path, tokenizer_path: Path, device: str = "cpu", threads: int = 1) -> None:
        try:
            from tokenizers import Tokenizer

            self._tok = Tokenizer.from_file(str(tokenizer_path))
            self._sess = onnx_session(model_path, device, threads)
        except Exception as e:
            raise ModelError(f"cannot load the text embedder from {model_path}: {e}") from e
        self._tok.enable_truncation(MAX_TOKENS)
        self._tok.no_padding()
        self._counter = Tokenizer.from_file(str(tokenizer_path))
        self._counter.no_truncation()
        self._counter.no_padding()

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
        encodings = self._tok.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), BATCH):
            idx = order[start : start + BATCH]
            width = max(len(encodings[i].ids) for i in idx)
            ids = np.zeros((len(idx), width), np.int64)
            mask = np.zeros((len(idx), width), np.int64)
            for row, i in enumerate(idx):
                enc = encodings[i].ids
                ids[row, : len(enc)] = enc
                mask[row, : len(enc)] = 1
            hidden = self._sess.run(
                None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            )[0]
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            out[idx] = pooled
        return out
