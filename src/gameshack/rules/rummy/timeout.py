"""What the server plays for a seat whose turn timer ran out (the optional turn timer).

The penalty is the safest legal completion of the turn: everything the turn did that can be
taken back is undone (newest first), then the seat draws from the stock and discards the card
it drew, and the discard is committed at once (no grace window: the time is up).

- A turn that began by drawing from the stock cannot undo that draw: its plays are undone and
  the drawn card is discarded. A card drawn blind is never owed to a meld and is not the taken
  top card, so it may always be discarded.
- A turn that began by taking from the discard pile is undone to its start (the cards go back
  on the pile), so the seat draws from the stock instead.
- A discard already pending (the grace window) is the seat's own finished turn: it is
  committed as it is.
- An empty stock (a rare moment: the pile is reshuffled when the last card is drawn) leaves
  the discard pile: the seat takes its top card, which it may not discard, and discards its
  highest card instead (the fewest points left in hand).
"""

from __future__ import annotations

from gameshack.rules.rummy.actions import COMMIT, DRAW, UNDO, Action, Discard, Take
from gameshack.rules.rummy.cards import card_value
from gameshack.rules.rummy.state import Phase, Stage, State, apply

__all__ = ["timeout_actions"]


def timeout_actions(state: State, seat: int) -> list[Action]:
    """The actions, in order, that complete ``seat``'s turn when its time is up; empty when
    ``seat`` has no turn in progress (the first-deal draw, between hands, not its turn)."""
    if state.phase is not Phase.PLAYING or seat != state.turn:
        return []
    if state.stage is Stage.PENDING:
        return [COMMIT]
    out: list[Action] = []
    s = state
    while s.steps:
        s = apply(s, seat, UNDO)
        out.append(UNDO)
    if s.stage is Stage.PLAY:  # drew from the stock: that cannot be undone
        assert s.drawn is not None
        return [*out, Discard(s.drawn), COMMIT]
    if s.stock:
        return [*out, DRAW, Discard(s.stock[-1]), COMMIT]
    if s.discard:
        top = s.discard[-1]
        rest = [c for c in s.hands[seat] if c != top]
        worst = max(rest, key=lambda c: (card_value(c), c))
        return [*out, Take(top), Discard(worst), COMMIT]
    return out
