"""The voice companion's routes (`serve --companion`, `run --serve --companion`): its state, push-to-talk, and
something for it to say. Its voice goes to the glasses over the ingest WebSocket (app/service/ingest.py)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from app.errors import NotFoundError


class SayBody(BaseModel):
    text: str = Field(min_length=1, max_length=2000)


def router(service) -> APIRouter:
    """The routes, over `service` (app.service.app.Service)."""
    api = APIRouter()

    def running():
        if service.companion is None:
            raise NotFoundError("the companion is not running here (serve --companion)")
        return service.companion

    @api.get("/v1/companion", summary="the voice companion: its state and what it has said")
    async def state() -> dict:
        companion = running()
        return {
            "state": companion.turns.state.value,
            "armed": companion.turns.armed,
            "voice": companion.voice.name,
            "replies": [r.as_dict() for r in companion.replies[-20:]],
            "barge_ins": len(companion.barge_ins),
        }

    @api.post("/v1/companion/listen", summary="push-to-talk: the next utterance is addressed to the companion")
    async def listen() -> dict:
        running().push_to_talk()
        return {"armed": True}

    @api.post("/v1/companion/say", summary="have the companion say something (when it is not already talking)")
    async def say(body: SayBody) -> dict:
        return {"said": running().say(body.text)}

    return api
