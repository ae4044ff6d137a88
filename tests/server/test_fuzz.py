"""Protocol fuzzing: random and malformed frames never crash the server or change a game."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from server.wsclient import LiveServer, Sock, settings_for

KNOWN_TYPES = ["act", "sync", "ping", "hint", "start", "add_bot", "chat_read", "nope", "", "ACT"]

json_scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
action_words = st.sampled_from(
    [
        "draw",
        "take",
        "meld",
        "layoff",
        "discard",
        "undo",
        "commit",
        "deal",
        "next",
        "move",
        "confirm",
        "x",
    ]
)
action_texts = st.one_of(
    st.text(max_size=60),
    st.lists(st.one_of(action_words, st.text(max_size=4)), min_size=1, max_size=5).map(" ".join),
)


@st.composite
def frames(draw: Any) -> str | bytes:
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(st.text(max_size=200))  # any text at all
    if kind == 1:
        return draw(st.binary(max_size=100))  # a binary frame
    if kind == 2:
        return json.dumps(draw(json_values))  # any JSON
    msg: dict[str, Any] = {"type": draw(st.sampled_from(KNOWN_TYPES))}
    if kind >= 3:
        msg["v"] = draw(
            st.one_of(
                st.integers(-5, 10**20), st.text(max_size=5), st.none(), st.floats(allow_nan=False)
            )
        )
        msg["action"] = draw(st.one_of(action_texts, st.integers(), st.none()))
    if kind == 4:
        msg.update(draw(st.dictionaries(st.text(max_size=6), json_scalars, max_size=3)))
    if kind == 5:
        msg["difficulty"] = draw(st.one_of(st.text(max_size=8), st.integers()))
    return json.dumps(msg)


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, str, Sock, Sock]]:
    tmp: Path = tmp_path_factory.mktemp("fuzz")
    # A high rate limit so every fuzz frame is really parsed (the limiter is tested elsewhere).
    with LiveServer(settings_for(tmp, rate_per_sec=10_000.0, rate_burst=10_000.0)) as live:
        ana, ben = live.player("Ana"), live.player("Ben")
        code = ana.create(game="rummy", seats=2, seed=77)["code"]
        ben.join(code)
        a, b = ana.connect(code), ben.connect(code)
        assert a.act("deal")["type"] == "ack"
        b.drain(0.1)
        assert b.act("deal")["type"] == "ack"
        a.drain(0.1)
        yield live, code, a, b
        a.close()
        b.close()


@settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(frame=frames(), who=st.integers(0, 1))
def test_random_frames_never_crash_or_change_the_game(
    table: tuple[LiveServer, str, Sock, Sock], frame: str | bytes, who: int
) -> None:
    live, code, a, b = table
    room = live.service.rooms[code]
    sock = (a, b)[who]
    # A frame that happens to be a legal, current action is not bad input: skip it.
    if isinstance(frame, str):
        try:
            data = json.loads(frame)
        except ValueError:
            data = None
        if isinstance(data, dict) and data.get("type") == "act":
            legal = set(sock.view["legal"]) if sock.view else set()
            assume(
                not (
                    data.get("v") == room.view_v.get(who)
                    and str(data.get("action", "")).strip() in legal
                )
            )
    before = (room.row.version, room.row.state, room.row.status)
    sock.send_raw(frame)
    pong = sock.request(type="ping", timeout=5)
    assert pong["type"] == "pong"
    assert (room.row.version, room.row.state, room.row.status) == before
    sock.drain(0.0)
    assert not [m for m in sock.frames if m.get("code") == "server_error"]


def test_oversized_and_binary_frames_get_errors_and_the_socket_stays_open(
    table: tuple[LiveServer, str, Sock, Sock],
) -> None:
    live, code, a, _ = table
    v = live.service.rooms[code].row.version
    a.send_raw(json.dumps({"type": "chat", "text": "x" * 70_000}))
    assert a.wait_type("error")["code"] == "too_large"
    a.send_raw(b"\x00\xff")
    assert a.wait_type("error")["code"] == "malformed"
    a.send_raw("[" * 50_000)
    assert a.wait_type("error")["code"] == "malformed"
    assert a.request(type="ping")["type"] == "pong"
    assert live.service.rooms[code].row.version == v


def test_rate_limit_answers_with_an_error_and_keeps_the_socket(tmp_path: Path) -> None:
    with LiveServer(settings_for(tmp_path, rate_per_sec=5.0, rate_burst=5.0)) as live:
        ana = live.player("Ana")
        code = ana.create(game="tiles", seats=2)["code"]
        a = ana.connect(code)
        for _ in range(30):
            a.send(type="sync")
        assert a.wait(lambda m: m["type"] == "error" and m["code"] == "rate_limited")
        import time

        time.sleep(1.0)
        assert a.request(type="ping")["type"] == "pong"
        a.close()


def test_origin_is_checked(live: LiveServer) -> None:
    from websockets.exceptions import ConnectionClosed

    ana = live.player("Ana")
    code = ana.create(game="tiles", seats=2)["code"]
    with pytest.raises(ConnectionClosed) as info:
        ana.connect(code, origin="http://evil.example")
    assert info.value.rcvd is not None and info.value.rcvd.code == 4403
    ana.connect(code).close()  # its own origin is fine
