"""Text: sentence embeddings for dense search."""
