"""The recorder: capture, speech, identity and storing, as one pipeline (pipeline.py) over sources."""
