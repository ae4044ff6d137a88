"""Stats from matches really played through the server (no hand-made records): two people play a
Rummy match to its target over real WebSockets, and one plays a practice match against a bot;
the Stats endpoints count exactly the first, with the server's own final scores."""

from __future__ import annotations

import time

from server.wsclient import LiveServer, drive, settings_for


def test_a_real_one_on_one_match_counts_and_practice_does_not(tmp_path, database_url):
    # The scripted players act as fast as the server answers, faster than the per-socket limit
    # meant for people; that limit has its own tests (tests/server), this one is about stats.
    settings = settings_for(
        tmp_path, database_url=database_url, rate_per_sec=1000.0, rate_burst=1000.0
    )
    with LiveServer(settings) as live:
        ana, ben = live.player("Ana", "🦊"), live.player("Ben", "🐻")
        code = ana.create(game="rummy", seats=2, target=100, seed=11)["code"]
        ben.join(code)
        with ana.socket(code) as a, ben.socket(code) as b:
            drive(live, code, {0: a, 1: b}, lambda r: r.row.status == "finished", timeout=90)
        practice = ana.create(
            game="rummy", seats=2, target=100, practice=True, difficulty="easy", seed=5
        )
        with ana.socket(practice["code"]) as a:
            drive(live, practice["code"], {0: a}, lambda r: r.row.status == "finished", timeout=90)

        # drive() stops when the room's row says "finished", which the server sets just before
        # the commit that writes the match's record lands: wait for that commit (a slow machine
        # lost this race)
        deadline = time.monotonic() + 10.0
        while True:
            records = live.call(live.service.store.records())
            done = any(r.scope == "match" and r.code == practice["code"] for r in records)
            if done or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        (match,) = [r for r in records if r.scope == "match" and r.code == code]
        hands = [r.scores[0] for r in records if r.scope == "hand" and r.code == code]
        assert any(r.scope == "match" and r.code == practice["code"] for r in records)

        s = ana.http.get("/api/stats", params={"name": "Ana"}).json()["overall"]
        won = 0 in match.winners and len(match.winners) == 1
        assert s["played"] == 1  # the practice match is not there
        assert s["won"] == int(won)
        assert s["hands"] == len(hands) and s["best_hand"] == max(hands)
        h = ben.http.get("/api/stats/history", params={"name": "Ben"}).json()
        (m,) = h["matches"]
        assert (m["opponent"], m["code"], m["game"]) == ("Ana", code, "rummy")
        assert (m["my_score"], m["opponent_score"]) == (match.scores[1], match.scores[0])
        assert max(match.scores) >= 100
