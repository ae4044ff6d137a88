"""Server -> client frames: one value and one encoder per type, writing what the server sends.

The encoders are checked against the dicts the service builds for each frame (encoded with
orjson, as the service does), and against every frame a real server sends in a real game: each
one decodes to exactly one type of the closed set and encodes back to the same bytes.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gameshack.metrics import ERRORS
from gameshack.protocol import (
    AckFrame,
    ChatFrame,
    ChatHistoryFrame,
    EndedFrame,
    ErrorFrame,
    HelloFrame,
    HintFrame,
    PongFrame,
    RoomFrame,
    ServerMessage,
    ViewFrame,
    decode,
    error_frame,
    error_message,
)
from gameshack.protocol.outbound import FRAMES, ascii_fragment, join_log, log_delta
from server.test_watch import spectator
from server.wsclient import LiveServer, Sock, drive, engine_of, settings_for

DOCS = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def _dumps(obj: Any) -> str:
    """What a frame must be, byte for byte: compact JSON in ASCII, as the standard library writes
    it (every character outside ASCII escaped, so a frame is never a wide Python string)."""
    return json.dumps(obj, separators=(",", ":"))


def documented_types() -> set[str]:
    """The frame types docs/protocol.md lists under "Server → client" (its #### headings)."""
    text = DOCS.read_text()
    section = text.split("### Server → client", 1)[1].split("\n## ", 1)[0]
    heads = re.findall(r"^#### (.*)$", section, re.M)
    # "#### `chat` (broadcast …) and `chat_history` (on connect)", "#### `hint` — … `error`":
    # the names in the heading itself, not in its asides.
    names = [re.sub(r"\(.*?\)", "", head.split(" — ")[0]) for head in heads]
    return {name for head in names for name in re.findall(r"`([a-z_]+)`", head)}


ROOM: dict[str, Any] = {
    "code": "KQ7M4",
    "game": "rummy",
    "status": "active",
    "seats": 2,
    "you": 0,
    "host": 0,
    "target": 200,
    "practice": False,
    "difficulty": None,
    "players": [
        {"seat": 0, "name": "Ana", "emoji": "🦊", "bot": False, "online": True},
        {"seat": 1, "name": "Ben\u200d", "emoji": "🐻", "bot": False, "online": False},
    ],
    "to_act": [0],
    "chat_unread": 2,
    "ended": None,
}
MSG: dict[str, Any] = {
    "id": 41,
    "seat": 1,
    "name": "Ben",
    "emoji": "🐻",
    "text": '<b>"hi"</b>\n\\',
    "ts": 1764430802123,
}
STATE: dict[str, Any] = {"hand": ["7H", "8H"], "stock": 31, "scores": [0, -20]}

# Each frame, beside the dict the service builds for the same values today (service/).
CASES: list[tuple[ServerMessage, dict[str, Any]]] = [
    (
        HelloFrame("KQ7M4", "rummy", 0, 1764430802123),
        {
            "type": "hello",
            "code": "KQ7M4",
            "game": "rummy",
            "seat": 0,
            "server_time": 1764430802123,
        },
    ),
    (RoomFrame(ROOM), {"type": "room", "room": ROOM}),
    (AckFrame("a17", 13), {"type": "ack", "id": "a17", "v": 13}),
    (AckFrame(None, 13), {"type": "ack", "id": None, "v": 13}),
    (
        ErrorFrame("stale", "The game moved on.", "a17"),
        {"type": "error", "code": "stale", "message": "The game moved on.", "id": "a17"},
    ),
    (
        ErrorFrame("malformed", "That message is not valid JSON."),
        {"type": "error", "code": "malformed", "message": "That message is not valid JSON."},
    ),
    (ChatFrame(MSG), {"type": "chat", "msg": MSG}),
    (
        ChatHistoryFrame([MSG, {**MSG, "id": 42}], 1),
        {"type": "chat_history", "messages": [MSG, {**MSG, "id": 42}], "unread": 1},
    ),
    (ChatHistoryFrame([], 0), {"type": "chat_history", "messages": [], "unread": 0}),
    (
        PongFrame("p1", 1764430802123),
        {"type": "pong", "id": "p1", "server_time": 1764430802123},
    ),
    (PongFrame(None, 5), {"type": "pong", "id": None, "server_time": 5}),
    (
        HintFrame("h3", 12, {"actions": ["meld 7H 8H 9H"], "discard": "KC", "text": "Meld."}),
        {
            "type": "hint",
            "id": "h3",
            "v": 12,
            "hint": {"actions": ["meld 7H 8H 9H"], "discard": "KC", "text": "Meld."},
        },
    ),
    (
        EndedFrame("left", 1, "Ben"),
        {"type": "ended", "reason": "left", "seat": 1, "name": "Ben"},
    ),
    (
        EndedFrame("expired", None, None),
        {"type": "ended", "reason": "expired", "seat": None, "name": None},
    ),
]


def runner_view(
    v: int, grace: Any, room: Any, state: Any, legal: list[str], log_from: int, log: Any
) -> str:
    """A view frame as service/frames.py assembles it: its head spliced onto the encoded body."""
    body = _dumps({"state": state, "legal": legal})
    head = _dumps({"type": "view", "v": v, "grace": grace, "room": room})
    return f'{head[:-1]},"log_from":{log_from},"log":{_dumps(log)},{body[1:]}'


@pytest.mark.parametrize(("frame", "built"), CASES, ids=lambda x: getattr(x, "type", ""))
def test_each_frame_encodes_as_the_service_builds_it(
    frame: ServerMessage, built: dict[str, Any]
) -> None:
    text = frame.encode()
    assert text == _dumps(built)  # byte for byte: the same keys in the same order
    assert orjson.loads(text) == built
    assert decode(text) == frame


EVENTS = [{"seat": 0, "kind": "deal", "cards": ["QS"]}, {"seat": 0, "kind": "draw"}]


@pytest.mark.parametrize(
    ("grace", "state", "legal", "log_from", "log"),
    [
        ({"deadline": 1764430806123, "remaining_ms": 3980}, STATE, ["undo"], 0, EVENTS),
        (None, STATE, ["draw", "take 1"], 1, EVENTS[1:]),
        (None, STATE, ["draw"], 2, []),
        (None, None, [], 0, None),  # a room waiting for players
    ],
)
def test_a_view_is_spliced_from_its_encoded_body(
    grace: dict[str, int] | None,
    state: dict[str, Any] | None,
    legal: list[str],
    log_from: int,
    log: Any,
) -> None:
    body = ViewFrame.encode_body(state, legal)
    frame = ViewFrame(12, grace, ROOM, body, log_from, _dumps(log))
    text = frame.encode()
    assert text == runner_view(12, grace, ROOM, state, legal, log_from, log)
    whole = {"type": "view", "v": 12, "grace": grace, "room": ROOM}
    whole |= {"log_from": log_from, "log": log, "state": state, "legal": legal}
    assert text == _dumps(whole)
    assert decode(text) == frame
    assert frame.state == state and frame.legal == legal


def _log(events: list[dict[str, Any]]) -> tuple[str, int]:
    return _dumps(events), len(events)


def test_a_view_carries_only_the_events_its_sockets_have_not_had() -> None:
    deal, draw = EVENTS
    meld = {"seat": 1, "kind": "meld", "cards": ["2H", "3H", "4H"], "meld": 0}
    assert log_delta(None, _log(EVENTS)) == (0, _dumps(EVENTS))  # nothing sent yet: all of it
    assert log_delta(_log([deal]), _log(EVENTS)) == (1, _dumps([draw]))
    assert log_delta(_log([deal]), _log([deal, draw, meld])) == (1, _dumps([draw, meld]))
    assert log_delta(_log(EVENTS), _log(EVENTS)) == (2, "[]")  # the same view sent again
    assert log_delta(_log([]), _log(EVENTS)) == (0, _dumps(EVENTS))
    assert log_delta(_log(EVENTS), _log([])) == (0, "[]")  # a new hand, nothing in it yet
    # A new hand whose log starts the same way the last one did is not mistaken for it ...
    assert log_delta(_log([deal, meld]), _log(EVENTS)) == (0, _dumps(EVENTS))
    # ... nor is an entry whose text only begins like the one sent (the boundary is checked).
    assert log_delta(("[1]", 1), ("[12,3]", 2)) == (0, "[12,3]")
    assert log_delta(("[1]", 1), ("[1,3]", 2)) == (1, "[3]")
    assert log_delta(_log([deal]), ("null", 0)) == (0, "null")  # no game yet


def test_a_client_puts_the_log_back_together_or_asks_for_all_of_it() -> None:
    deal, draw = EVENTS

    def view(v: int, log_from: int, log: Any, state: Any = STATE) -> dict[str, Any]:
        return {"type": "view", "v": v, "log_from": log_from, "log": log, "state": dict(state)}

    first = view(7, 0, [deal])
    kept = join_log(None, first)
    assert kept == (7, [deal]) and first["state"]["log"] == [deal] and "log" not in first
    second = view(8, 1, [draw])
    assert join_log(kept, second) == (8, EVENTS) and second["state"]["log"] == EVENTS
    assert join_log((8, EVENTS), view(8, 2, []))[1] == EVENTS  # sent again: nothing new
    with pytest.raises(ValueError, match="sync"):
        join_log((7, [deal]), view(9, 1, [draw]))  # view 8 went missing
    with pytest.raises(ValueError, match="sync"):
        join_log(None, view(8, 1, [draw]))  # a socket's first view must bring the whole log
    with pytest.raises(ValueError, match="sync"):
        join_log((7, []), view(8, 1, [draw]))
    assert join_log((7, [deal]), view(30, 0, [draw])) == (30, [draw])  # whole: always taken
    waiting = {"type": "view", "v": 31, "log_from": 0, "log": None, "state": None}
    assert join_log((30, [draw]), waiting) == (31, []) and waiting["state"] is None


# Without DEL: it is ASCII, which orjson writes as it is and the standard library escapes.
chars = st.characters(codec="utf-8", exclude_characters="\x7f")  # as st.text(), less DEL
texts = st.text(chars, max_size=30)
ids = st.none() | st.text(chars, max_size=64)


@given(ids, st.integers(0, 2**53), texts, texts, st.integers(-(2**63), 2**63 - 1))
def test_any_values_round_trip(msg_id: str | None, v: int, code: str, text: str, n: int) -> None:
    for frame, built in [
        (AckFrame(msg_id, v), {"type": "ack", "id": msg_id, "v": v}),
        (PongFrame(msg_id, v), {"type": "pong", "id": msg_id, "server_time": v}),
        (
            HelloFrame(code, text, n, v),
            {"type": "hello", "code": code, "game": text, "seat": n, "server_time": v},
        ),
        (EndedFrame(text, n, code), {"type": "ended", "reason": text, "seat": n, "name": code}),
        (ChatFrame({**MSG, "text": text}), {"type": "chat", "msg": {**MSG, "text": text}}),
    ]:
        encoded = frame.encode()
        assert encoded == _dumps(built)
        assert decode(encoded) == frame
    error = ErrorFrame(code, text, msg_id)
    assert orjson.loads(error.encode()) == error_message(code, text, msg_id)


def test_error_message_is_the_error_frame_and_is_counted() -> None:
    before = ERRORS.labels("no_hint")._value.get()
    frame = error_frame("no_hint", "Hints are for your own turn.", "h1")
    assert ERRORS.labels("no_hint")._value.get() == before + 1
    assert frame == ErrorFrame("no_hint", "Hints are for your own turn.", "h1")
    as_dict = error_message("no_hint", "Hints are for your own turn.")
    assert as_dict == {
        "type": "error",
        "code": "no_hint",
        "message": "Hints are for your own turn.",
    }
    assert list(as_dict) == ["type", "code", "message"]  # no "id" key when there is none


def test_a_lone_surrogate_cannot_make_a_frame_unsendable() -> None:
    # The socket used to close when a frame could not be encoded as UTF-8.
    text = ErrorFrame("malformed", "bad \ud800 here", "x\udfff").encode()
    text.encode("utf-8")
    assert orjson.loads(text) == {
        "type": "error",
        "code": "malformed",
        "message": "bad \ufffd here",
        "id": "x\ufffd",
    }
    with pytest.raises(TypeError):  # anything else orjson cannot encode still fails loudly
        RoomFrame({"x": object()}).encode()


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        '{"type": "nope"}',
        '{"code": "x"}',
        '{"type": "ack", "id": "a", "v": 1, "extra": 0}',  # a field too many
        '{"type": "ack", "id": "a"}',  # one missing
        '{"type": "ack", "id": "a", "v": true}',  # a bool is not a version
        '{"type": "ack", "id": 7, "v": 1}',
        '{"type": "error", "code": "x", "message": "y", "id": null}',  # id is omitted, not null
        '{"type": "hello", "code": "K", "game": "rummy", "seat": "0", "server_time": 1}',
        '{"type": "view", "v": 1, "grace": null, "room": {}}',
        '{"type": "view", "v": 1, "grace": null, "room": {}, "state": null, "legal": [1]}',
        '{"type": "chat_history", "messages": [1], "unread": 0}',
        '{"type": "view", "v": 1, "grace": null, "room": {}, "state": [], "legal": []}',
    ],
)
def test_decode_refuses_what_is_not_exactly_a_frame(text: str) -> None:
    with pytest.raises(ValueError):
        decode(text)


def test_a_frame_is_ascii_whatever_the_names() -> None:
    """Names, emoji and chat are escaped: the same JSON values, and a frame is never a wide
    Python string (a view spliced onto an emoji would be four bytes a character)."""
    room = {**ROOM, "players": [{**p, "name": "Zoë 🐻", "emoji": "🦊"} for p in ROOM["players"]]}
    for frame in (RoomFrame(room), ChatFrame({**MSG, "text": "é ✓ 🎉"})):
        text = frame.encode()
        assert text.isascii()
        assert "\\ud83e\\udd8a" in text or "\\u00e9" in text  # 🦊 or é
        assert decode(text) == frame and decode(text).encode() == text
    ack = AckFrame("\x7f", 1)  # DEL is ASCII: written as it is, and read back the same
    assert decode(ack.encode()) == ack
    players = ascii_fragment(room["players"])
    view = ViewFrame(3, None, {**room, "players": players}, ViewFrame.encode_body(STATE, []))
    text = view.encode()
    assert text.isascii()
    assert orjson.loads(text)["room"] == room
    assert text == ViewFrame(3, None, room, ViewFrame.encode_body(STATE, [])).encode()


def test_key_order_is_part_of_a_frame() -> None:
    # A reordered frame means the same, but it is not what the server sends.
    text = '{"v":1,"type":"ack","id":"a"}'
    assert decode(text) == AckFrame("a", 1)
    assert decode(text).encode() == '{"type":"ack","id":"a","v":1}' != text


def test_the_closed_set_is_the_documented_set() -> None:
    assert {cls.type for cls in FRAMES} == documented_types()
    assert len(FRAMES) == len(documented_types())


def test_every_frame_of_a_real_game_is_one_of_the_set(tmp_path: Path) -> None:
    """Two humans play a Rummy hand through the real server; every frame either socket gets
    decodes to one of the closed set and encodes back to the very same text."""
    with LiveServer(settings_for(tmp_path)) as live:
        ana, ben = live.player("Ana", "🦊"), live.player("Ben", "🐻")
        code = ana.create(game="rummy", seats=2, target=500, seed=11)["code"]
        a = ana.connect(code)  # hello, view, chat_history
        ben.join(code)  # a gets a room (Ben seated) and, the seats full, a view
        b = ben.connect(code)
        a.wait(lambda m: m["type"] == "view" and m["room"]["status"] == "active")
        # A spectator (issue 33): watching, chat_history, chat; watch_closed at the end.
        w = spectator(live, ana.http.get(f"/api/games/{code}/watch").json()["url"])
        assert a.request(type="ping")["type"] == "pong"
        assert b.request(type="chat", text="good luck")["type"] == "ack"  # chat, room
        assert a.request(type="chat_read")["type"] == "ack"
        assert a.request(type="nope")["code"] == "malformed"  # error
        room = live.service.rooms[code]
        drive(live, code, {0: a, 1: b}, lambda r: r.row.version >= 6)
        _hint(live, code, {0: a, 1: b})
        drive(live, code, {0: a, 1: b}, lambda r: engine_of("rummy").outcome(r.state) is not None)
        a.send(type="act", v=0, action="draw", id="old")  # error stale, then a view
        assert a.wait(lambda m: m.get("id") == "old")["code"] == "stale"
        assert b.request(type="leave")["type"] == "ack"  # ended, then views
        a.wait_type("ended")
        for sock in (a, b):
            sock.drain(0.2)
        assert room.row.status == "ended"
        assert ana.http.delete(f"/api/games/{code}/watch").status_code == 200
        w.wait_type("watch_closed")
        seen: set[str] = set()
        for sock in (a, b, w):
            assert len(sock.raw) == len(sock.frames) > 10
            for text in sock.raw:
                frame = decode(text)
                assert isinstance(frame, FRAMES)
                assert frame.encode() == text, text[:200]
                seen.add(frame.type)
        a.close()
        b.close()
        # issue 33: a practice match played to its end, then its rematch (rematch frames).
        code = ana.create(
            game="tiles", seats=2, practice=True, difficulty="hard", target=1, seed=9
        )["code"]
        with ana.socket(code) as c:
            drive(live, code, {0: c}, lambda r: r.row.status == "finished", timeout=120)
            c.until_view(lambda m: m["room"]["status"] == "finished")
            assert c.request(type="rematch", accept=True)["type"] == "ack"
            c.wait_type("rematch_started")
            for text in c.raw:
                frame = decode(text)
                assert frame.encode() == text, text[:200]
                seen.add(frame.type)
        w.close()
    assert seen == documented_types()


def _hint(live: LiveServer, code: str, socks: dict[int, Sock]) -> None:
    """Ask for a hint on the seat whose turn it is (a busy pool is asked again)."""
    room = live.service.rooms[code]
    for _ in range(50):
        for sock in socks.values():
            sock.drain(0.01)
        to_act = sorted(engine_of("rummy").to_act(room.state))
        sock = socks[to_act[0]]
        reply = sock.request(type="hint")
        if reply["type"] == "hint":
            return
        assert reply["code"] in ("busy", "no_hint"), reply
        time.sleep(0.05)
    raise AssertionError("no hint was given")
