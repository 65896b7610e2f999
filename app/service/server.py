"""Where the service listens, and uvicorn started inside the running loop (app/runtime.py owns the rest: one
process, one loop)."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import sys
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from app.config import Config
from app.errors import ConfigError
from app.service.app import Service, create_app
from app.service.auth import api_token
from app.service.events import EventLog
from app.service.ingest import ingest_max_message


@dataclass(frozen=True)
class Listen:
    host: str
    port: int
    cert: Path | None = None  # HTTPS with this certificate and key
    key: Path | None = None

    @property
    def scheme(self) -> str:
        return "https" if self.cert else "http"


def listen_on(
    host: str, port: int, public: bool = False, cert: Path | None = None, key: Path | None = None, insecure=False
) -> Listen:
    """Loopback unless the user said --public; --public only with a certificate (the token and the audio
    would cross the network in clear) unless the user said --insecure too."""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback and not public:
        raise ConfigError(
            f"{host} is not a loopback address: anyone who reaches it with the token reads the memory; "
            "add --public (with --cert and --key) to listen there anyway"
        )
    if (cert is None) != (key is None):
        raise ConfigError("HTTPS needs both --cert and --key")
    for path in (cert, key):
        if path is not None and not path.is_file():
            raise ConfigError(f"no such file: {path}")
    if not loopback and cert is None and not insecure:
        raise ConfigError(
            "--public without --cert and --key would send the token and the audio over the network in clear; "
            "give a certificate, or add --insecure on a network you trust"
        )
    return Listen(host, port, cert, key)


async def start_http(
    cfg: Config, memory, embedder, events: EventLog, data_dir: Path, listen: Listen, ingest, llm, recorder, companion
) -> tuple[uvicorn.Server, asyncio.Task, Service]:
    """The service listening on `listen` inside the running loop: (uvicorn's server, its task, the Service).
    Prints the address and where the token is once it listens."""
    service = Service(cfg, memory, embedder, events, lambda: recorder.present if recorder else None, ingest, llm,
                      recorder, companion)  # fmt: skip
    token, where = api_token(data_dir)
    app = create_app(service, token, hosts=(listen.host,), tls=listen.cert is not None)
    server = _Server(
        uvicorn.Config(
            app,
            host=listen.host,
            port=listen.port,
            log_level="warning",
            access_log=False,
            ssl_certfile=listen.cert,
            ssl_keyfile=listen.key,
            ws_max_size=ingest_max_message(cfg),
        )
    )
    serving = asyncio.create_task(server.serve(), name="service")
    while not server.started and not serving.done():
        await asyncio.sleep(0.05)
    if serving.done():  # it could not listen (the port is taken): uvicorn logged why
        await asyncio.to_thread(service.close)
        raise ConfigError(f"cannot listen on {listen.host}:{listen.port}")
    bound = server.servers[0].sockets[0].getsockname()[1]
    sys.stdout.write(f"serving on {listen.scheme}://{listen.host}:{bound} (token: {where}); Ctrl-C stops\n")
    sys.stdout.flush()
    return server, serving, service


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self):  # the runtime's below: uvicorn's re-raise the signal after it stops, killing the
        yield  # process before the recorder has stored what was acknowledged
