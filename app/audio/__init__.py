"""Audio: decoding, voice activity, speech recognition and speaker embeddings."""
