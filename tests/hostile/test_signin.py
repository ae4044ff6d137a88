"""Issue 28, point 5, against a real server process: sign-in lockout and mail bombing.

Before the fix, 10 wrong tries from anywhere locked an address out for 15 minutes (the right
code included), 5 requests stopped its owner getting a code, every request mailed the owner,
and ten guesses at once were all compared with one code. Here attackers on 21 other loopback
addresses (127.0.0.2-22, real source IPs to the server) ask for codes and guess, concurrently,
while a normal player pings a game socket; the owner (127.0.0.1) then signs in with the one code
mailed (through a real SMTP server) — and the mailbox got only that one.
"""

from __future__ import annotations

import contextlib
import re
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from accounts.smtp import SmtpServer

from .proc import ping_times, quantile, running_server

VICTIM = "victim@example.com"
ATTACKERS = [f"127.0.0.{i}" for i in range(2, 23)]
THROTTLED = re.compile(
    r"A code was sent to this address less than a minute ago; check your inbox or try again"
    r" in (\d+) s\."
)


def client(base: str, source: str = "127.0.0.1") -> httpx.Client:
    c = httpx.Client(base_url=base, timeout=20, transport=httpx.HTTPTransport(local_address=source))
    c.get("/api/health")  # the device cookie, as a browser gets it
    return c


def attack(base: str, source: str, hammer: bool) -> list[tuple[str, int, str]]:
    """One attacking address: ask for the victim's code twice, then guess (15 times when
    ``hammer``, else 6). Returns (what, status, error code) for each request."""
    out = []
    with contextlib.closing(client(base, source)) as c:
        for _ in range(2):
            r = c.post("/api/account/request-code", json={"email": VICTIM})
            err = r.json().get("error", {})
            assert r.status_code != 429 or THROTTLED.fullmatch(err["message"]), r.text
            assert r.status_code != 429 or 1 <= int(r.headers["Retry-After"]) <= 60
            out.append(("request", r.status_code, err.get("code", "")))
        for i in range(15 if hammer else 6):
            guess = f"{(hash((source, i)) % 1_000_000):06d}"
            r = c.post("/api/account/verify", json={"email": VICTIM, "code": guess})
            if r.status_code == 429:
                assert int(r.headers["Retry-After"]) >= 1
            out.append(("verify", r.status_code, r.json().get("error", {}).get("code", "")))
    return out


def test_attackers_neither_lock_out_nor_mail_bomb_the_owner(tmp_path):
    with SmtpServer() as smtp, running_server(tmp_path / "data", smtp.env()) as server:
        # A normal player on a game socket, pinging before and during the attack.
        ann, ben = server.player("Ann"), server.player("Ben")
        game = ann.create(game="rummy", seats=2)["code"]
        ben.join(game)
        sock = ann.connect(game)
        quiet = ping_times(sock, 30)

        owner = client(server.base)
        r = owner.post("/api/account/request-code", json={"email": VICTIM})
        assert r.status_code == 200, r.text
        code = smtp.inbox.code_for(VICTIM)

        start = time.monotonic()
        with ThreadPoolExecutor(len(ATTACKERS)) as pool:
            runs = [
                pool.submit(attack, server.base, src, hammer=src == ATTACKERS[0])
                for src in ATTACKERS
            ]
            busy = ping_times(sock, 30)
            results = [x for f in runs for x in f.result()]
        took = time.monotonic() - start

        requests = [(s, e) for what, s, e in results if what == "request"]
        verifies = [(s, e) for what, s, e in results if what == "verify"]
        # Every code request of the attackers was refused: the owner's mail went out just now.
        assert requests == [(429, "rate_limited")] * (2 * len(ATTACKERS))
        # Their guesses were wrong; the hammering address was told to wait after ten.
        assert verifies.count((429, "rate_limited")) == 5
        assert verifies.count((400, "wrong_code")) == len(verifies) - 5 == 6 * 20 + 10
        # A stranger holding the right code now: void for strangers (their five tries went)...
        with contextlib.closing(client(server.base, "127.0.0.30")) as lucky:
            r = lucky.post("/api/account/verify", json={"email": VICTIM, "code": code})
            assert r.status_code == 400 and r.json()["error"]["code"] == "wrong_code"
        # ... but the owner, whose browser asked for it, signs in with it.
        r = owner.post("/api/account/verify", json={"email": VICTIM, "code": code})
        assert r.status_code == 200 and r.json()["signed_in"] is True, r.text
        assert owner.get("/api/account").json()["email"] == VICTIM
        # One mail in the owner's inbox, for 42 requests.
        time.sleep(0.2)
        assert len([m for m in smtp.inbox.messages if m["To"] == VICTIM]) == 1

        sock.close()
        owner.close()
        print(
            f"\nsign-in abuse: {len(results)} attacker requests from {len(ATTACKERS)} addresses"
            f" in {took:.2f} s; normal player's ping p50/p99 {quantile(quiet, 0.5):.1f}/"
            f"{quantile(quiet, 0.99):.1f} ms quiet, {quantile(busy, 0.5):.1f}/"
            f"{quantile(busy, 0.99):.1f} ms during"
        )
        assert quantile(busy, 0.99) < 1000
