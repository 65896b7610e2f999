"""lifemem: an on-device lifelong memory companion for wearables."""

__version__ = "0.1.0"
