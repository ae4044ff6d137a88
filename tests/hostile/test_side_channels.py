"""Issue 28, point 6, against a real ``gameshack serve``: while one player takes a private turn
(draws, melds, undos, a discard in its grace window and its undo), the other player's socket
receives nothing and what they can fetch over HTTP is byte-identical; once the turn commits,
their view version has grown by exactly one, however many private actions there were."""

from __future__ import annotations

from pathlib import Path

from .proc import running_server

ENV = {"GAMESHACK_GRACE_SECONDS": "2", "GAMESHACK_LOOKUPS_PER_MINUTE": "1000"}


def _legal(sock: object, prefix: str) -> str | None:
    view = sock.view  # type: ignore[attr-defined]
    return next((a for a in view["legal"] if a.startswith(prefix)), None)


def test_a_private_turn_leaves_no_trace(tmp_path: Path) -> None:
    with running_server(tmp_path / "data", ENV) as server:
        ana, ben = server.player("Ana"), server.player("Ben")
        code = ana.create(game="rummy", seats=2, seed=21)["code"]
        ben.join(code)
        a, b = ana.connect(code), ben.connect(code)
        assert a.act("deal")["type"] == "ack"
        b.drain(0.2)  # Ana's deal is public: act on the view that shows it
        assert b.act("deal")["type"] == "ack"
        a.wait(lambda m: m["type"] == "view" and m["state"]["phase"] == "playing")
        b.wait(lambda m: m["type"] == "view" and m["state"]["phase"] == "playing")
        a.drain(0.2)
        b.drain(0.2)
        turn = a.view["state"]["turn"]
        me, other, other_p = (a, b, ben) if turn == 0 else (b, a, ana)

        def seen() -> tuple[bytes, bytes]:
            return (
                other_p.http.get("/api/games").content,
                other_p.http.get(f"/api/games/{code}").content,
            )

        before, v_before, frames_before = seen(), other.view["v"], len(other.frames)
        private = 0
        assert me.act("draw")["type"] == "ack"
        private += 1
        for _ in range(2):
            meld = _legal(me, "meld")
            if meld is None:
                break
            me.drain(0.05)
            assert me.act(meld)["type"] == "ack"
            me.drain(0.05)
            assert me.act("undo")["type"] == "ack"
            private += 2
        me.drain(0.05)
        card = (_legal(me, "discard ") or "").split()[1]
        assert me.act(f"discard {card}")["type"] == "ack"
        me.drain(0.05)
        assert me.act("undo")["type"] == "ack"
        me.drain(0.05)
        assert me.act(f"discard {card}")["type"] == "ack"
        private += 3
        other.drain(0.3)  # anything sent to the other seat would have arrived by now
        assert len(other.frames) == frames_before
        assert seen() == before

        # The grace window ends: the turn is public now, in one step.
        published = other.wait(
            lambda m: m["type"] == "view" and m["room"]["to_act"] == [1 - turn], timeout=10
        )
        assert published["v"] == v_before + 1, (published["v"], v_before, private)
        assert published["state"]["discard"][-1] == card
        assert seen() != before
