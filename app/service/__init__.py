"""The local service: the memory, its events and an OpenAI-compatible endpoint over loopback HTTP, behind a
bearer token (`python -m app serve`, `run --serve`)."""
