"""Client frames are read with orjson and refused with the same words as before it.

orjson refuses a lone surrogate outright, where the standard parser read it; the answer stays
"not valid Unicode" with the message's own id, unless that id is what held the surrogate.
"""

from __future__ import annotations

import pytest

from gameshack.protocol import Chat, Ping, ProtocolError, parse_client

NOT_JSON = "That message is not valid JSON."
NOT_UNICODE = "That message holds text that is not valid Unicode."
NOT_OBJECT = "A message must be a JSON object with a 'type'."


@pytest.mark.parametrize(
    ("raw", "message", "msg_id"),
    [
        ('{"type":"ping","id":"\\ud800"}', NOT_UNICODE, None),
        ('{"type":"chat","text":"hi \\udfff","id":"c1"}', NOT_UNICODE, "c1"),
        ('{"type":"ping","\\udc00":1,"id":"k"}', NOT_UNICODE, "k"),  # in a key
        (b'{"type":"chat","text":"\xed\xa0\x80","id":"b"}', NOT_UNICODE, "b"),  # UTF-8-encoded
        ('{"type":"chat","text":"\ud800","id":"r"}', NOT_UNICODE, "r"),  # a raw one in a str
        (
            '{"type":"chat","text":"\\ud800\\ud800","id":"\\udbff\\udfff"}',
            NOT_UNICODE,
            "\U0010ffff",
        ),
        ('{"type":"chat","text":"\\ud800","id":"\\\\ud800"}', NOT_UNICODE, "\\ud800"),  # text
        ('["\\ud800"]', NOT_OBJECT, None),
        ('{"type":1,"id":"x","t":"\\udc00"}', NOT_OBJECT, "x"),
        (b"\x00\xff", NOT_JSON, None),
        ("\x00", NOT_JSON, None),
        ('{"type":"ping",}', NOT_JSON, None),
        ("[" * 50_000, NOT_JSON, None),
        ('{"type":"ping","x":"\\ud800" oops}', NOT_JSON, None),  # not only the surrogate
        ('{"type":"pong","id":"p"}', "Unknown message type 'pong'.", "p"),
    ],
)
def test_refusals_keep_their_words(raw: str | bytes, message: str, msg_id: str | None) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_client(raw)
    assert (info.value.code, info.value.message, info.value.msg_id) == (
        "malformed",
        message,
        msg_id,
    )


def test_good_frames_parse() -> None:
    assert parse_client('{"type":"ping","id":"\\ud83d\\ude00"}') == Ping(type="ping", id="😀")
    assert parse_client(b'{"type":"chat","text":"a\\u0000b"}') == Chat(type="chat", text="a\x00b")
    assert parse_client('{"type":"chat","text":"\\\\ud800"}') == Chat(type="chat", text="\\ud800")
