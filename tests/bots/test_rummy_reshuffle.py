"""Bots and hints around the reshuffle (issue 32): the stock is reshuffled the moment its last
card is drawn, inside the drawer's private turn, and the others learn of it at the commit."""

from __future__ import annotations

import random

import gameshack.rules.rummy as R
from gameshack.bots import DIFFICULTIES, decide
from gameshack.bots.rummy.hint import rummy_hint
from gameshack.bots.rummy.memory import update_memory


def _to_a_reshuffle(seed: int) -> tuple[R.State, int]:
    """Play stock draws and first discards until a draw empties the stock and reshuffles:
    the state just after that draw, and the drawer."""
    state = R.new_match(R.Config(seats=2, target=None), seed)
    while True:
        seat = min(R.to_act(state))
        legal = [str(a) for a in R.legal_actions(state, seat)]
        text = next((a for a in legal if a in ("deal", "draw", "commit")), None)
        text = text or next((a for a in legal if a.startswith("discard ")), legal[0])
        state = R.apply(state, seat, R.parse_action(text))
        if text == "draw" and [e.kind for e in state.turn_events] == ["draw", "reshuffle"]:
            return state, seat
        assert state.phase in (R.Phase.DEAL_DRAW, R.Phase.PLAYING), "no reshuffle reached"


def test_bots_and_hints_play_on_from_the_reshuffling_draw() -> None:
    for seed in range(6):
        state, drawer = _to_a_reshuffle(seed)
        mine = R.view(state, drawer)
        assert len(mine.discard) == 1 and mine.stock > 0
        assert rummy_hint(mine)["stage"] == "play"
        for difficulty in DIFFICULTIES:
            action, _ = decide("rummy", difficulty, mine, None, random.Random(seed))
            R.apply(state, drawer, action)  # legal
        # Commit a discard; the next seat reads the reshuffle from the log.
        discard = next(a for a in R.legal_actions(state, drawer) if str(a).startswith("discard"))
        state = R.apply(R.apply(state, drawer, discard), drawer, R.parse_action("commit"))
        nxt = R.view(state, state.turn)
        assert [e.kind for e in nxt.log[-3:]] == ["draw", "reshuffle", "discard"]
        memory = update_memory(None, hand_no=nxt.hand_no, seats=2, me=nxt.seat, log=nxt.log)
        assert memory["pile"] == list(nxt.discard)  # the kept top, then the drawer's discard
        assert rummy_hint(nxt)["stage"] == "draw"
        for difficulty in DIFFICULTIES:
            action, _ = decide("rummy", difficulty, nxt, None, random.Random(seed))
            R.apply(state, nxt.seat, action)  # legal
