"""Real engine states for bot scenarios, written in card notation.

``position(...)`` builds a 2-seat Rummy state in the middle of a hand with seat 0 to act: its
hand, the table, the discard pile, the opponent's hand and the public log are given; the rest
of the deck becomes the stock. The state is a genuine :class:`State` and every bot test asks
the bot through ``view(state, 0)``, exactly as the server does.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gameshack.rules.rummy as R
from gameshack.bots import decide
from gameshack.rules.rummy.cards import parse_cards
from gameshack.rules.rummy.melds import TableMeld, meld_kind, order_meld
from gameshack.rules.rummy.state import DRAW_STAGE, PLAY_STAGE, Event


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text)) if text.strip() else ()


def position(
    hand: str,
    *,
    table: Sequence[tuple[str, int]] = (),
    pile: str = "",
    opponent: str = "",
    opponent_count: int | None = None,
    log: Sequence[tuple[int, str, str]] = (),
    stage: str = "play",
    totals: tuple[int, int] = (0, 0),
    target: int = 200,
) -> R.State:
    """Seat 0 to act at ``stage`` ("draw" or "play"); ``table`` is (cards, owner seat) per
    meld; ``log`` is (seat, kind, cards) public events after the deal; the opponent's hand is
    ``opponent`` plus filler cards up to ``opponent_count``."""
    mine = cards(hand)
    melds = tuple(
        TableMeld(i, str(meld_kind(cards(c))), order_meld(cards(c)), (o,) * len(cards(c)))
        for i, (c, o) in enumerate(table)
    )
    discard = cards(pile)
    opp = list(cards(opponent))
    used = set(mine) | {c for m in melds for c in m.cards} | set(discard) | set(opp)
    assert len(used) == len(mine) + sum(len(m.cards) for m in melds) + len(discard) + len(opp)
    rest = [c for c in range(52) if c not in used]
    random.Random(7).shuffle(rest)
    want = len(opp) if opponent_count is None else opponent_count
    while len(opp) < want:
        opp.append(rest.pop())
    events = [Event(0, "deal", discard[:1])]
    events += [Event(s, k, cards(c)) for s, k, c in log]
    state = R.new_match(R.Config(seats=2, target=target), 1)
    return state._replace(
        phase=R.Phase.PLAYING,
        hand_no=1,
        first_draw=(0, 1),
        first_winner=0,
        starter=0,
        turn=0,
        hands=(tuple(sorted(mine)), tuple(sorted(opp))),
        stock=tuple(rest),
        discard=discard,
        melds=melds,
        stage=DRAW_STAGE if stage == "draw" else PLAY_STAGE,
        pub_discard=discard,
        pub_melds=melds,
        pub_counts=(len(mine), len(opp)),
        pub_stock=len(rest),
        totals=totals,
        log=tuple(events),
    )


def play_turn(state: R.State, difficulty: str) -> tuple[list[str], R.State]:
    """Let seat 0's bot act until its discard is pending; the actions in notation."""
    memory: dict[str, Any] | None = None
    done: list[str] = []
    for _ in range(40):
        v = R.view(state, 0)
        if v.stage == "pending":
            return done, state
        action, memory = decide("rummy", difficulty, v, memory, random.Random(0))
        done.append(str(action))
        state = R.apply(state, 0, action)
    raise AssertionError(f"turn did not end: {done}")
