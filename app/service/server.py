"""Runs the service on uvicorn inside the caller's asyncio loop, beside a recorder when there is one
(`run --serve`): one process, one loop. Prints the address and where the token is once it listens."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from app.config import Config
from app.errors import ConfigError
from app.service.app import Service, create_app
from app.service.auth import api_token
from app.service.events import EventLog
from app.service.ingest import ingest_max_message

_LOGGER = logging.getLogger(__name__)


def _report_stop(task: asyncio.Task) -> None:
    """A recorder that stops on its own says why; the API goes on serving the memory."""
    if not task.cancelled() and task.exception() is not None:
        _LOGGER.error("recording stopped: %s; still serving", task.exception())


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


async def serve(
    cfg: Config,
    memory,
    embedder,
    data_dir: Path,
    listen: Listen,
    source=None,
    models=None,
    companion: bool = False,
) -> int:
    """Serve until SIGINT/SIGTERM, recording from `source` meanwhile (the glasses' ingest stream, or what
    `run --serve` names) with `models`, the voice companion in it with `companion`. Returns the recorder's
    exit code."""
    import uvicorn

    from app.llm import SharedLLM
    from app.recorder.pipeline import Recorder
    from app.service.ingest import IngestSource

    events = EventLog(cfg.service.events_kept)
    events.bind(asyncio.get_running_loop())
    llm = SharedLLM(cfg)  # one model: chat and answers at dialog priority, memory writing behind them
    ingest = source if isinstance(source, IngestSource) else None
    if source is not None and companion:
        from app.companion import session

        if ingest is not None:  # the companion's voice goes back to the glasses
            speaker = ingest.speak
        else:
            speaker = session.open_speaker(cfg) if source.duration_s is None else None
            source.realtime = True  # a replay: the companion talks on the clock of what it hears
        recorder, _, _ = session.build(cfg, memory, models, source, events.pipeline, speaker=speaker, llm=llm)
    else:
        recorder = Recorder(cfg, memory, models, source, on_event=events.pipeline, llm=llm) if source else None

    def present() -> str | None:
        seen = recorder.present if recorder is not None else None
        return recorder.writer.names.get(seen.person_id) if seen and seen.person_id is not None else None

    service = Service(cfg, memory, embedder, events, present, ingest, llm, recorder, recorder and recorder.companion)
    token, where = api_token(data_dir)

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self):  # ours below: uvicorn's re-raise the signal after it stops, killing the
            yield  # process before the recorder has stored what was acknowledged

    app = create_app(service, token, hosts=(listen.host,), tls=listen.cert is not None)
    server = Server(
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
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread, or no signals
            loop.add_signal_handler(sig, lambda: setattr(server, "should_exit", True))
    serving = asyncio.create_task(server.serve())
    while not server.started and not serving.done():
        await asyncio.sleep(0.05)
    if serving.done():  # it could not listen (the port is taken): uvicorn logged why
        await asyncio.to_thread(service.close)
        raise ConfigError(f"cannot listen on {listen.host}:{listen.port}")
    bound = server.servers[0].sockets[0].getsockname()[1]
    sys.stdout.write(f"serving on {listen.scheme}://{listen.host}:{bound} (token: {where}); Ctrl-C stops\n")
    sys.stdout.flush()
    recording = asyncio.create_task(recorder.run()) if recorder is not None else None
    if recording is not None:
        recording.add_done_callback(_report_stop)
    try:
        await serving  # until a signal: uvicorn catches SIGINT/SIGTERM and returns
    finally:
        server.should_exit = True
        await asyncio.gather(serving, return_exceptions=True)
        code = 0
        if recording is not None:
            source.stop()  # what was acknowledged is still processed and stored
            summary = await recording
            if recorder.companion is not None:
                await asyncio.to_thread(recorder.companion.close)
            code = summary.exit_code
            _LOGGER.info("recorded %d utterances while serving", summary.utterances)
        await asyncio.to_thread(service.close)
    return code
