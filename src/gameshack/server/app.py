"""The FastAPI application factory (placeholder until the server issue lands)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

__all__ = ["create_app"]


def create_app() -> FastAPI:
    app = FastAPI(title="GameShack")

    @app.get("/", response_class=HTMLResponse)
    async def index() -> str:
        return "<!doctype html><title>GameShack</title><h1>GameShack</h1><p>Coming soon.</p>"

    return app
