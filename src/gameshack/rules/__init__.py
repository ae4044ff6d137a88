"""Pure rules engines. Standard library only: no I/O, no clock, no global randomness.

Each game package (``rummy``, ``tiles``) answers the same questions with the same names:
``new_match(config, seed)``, ``legal_actions(state, seat)``, ``apply(state, seat, action)``
(or raise :class:`IllegalAction`), ``view(state, seat)``, ``outcome(state)``,
``parse_action(text)`` and ``state_to_dict`` / ``state_from_dict``.
"""

from gameshack.rules.common import (
    IllegalAction,
    MalformedAction,
    Outcome,
    Termination,
    derive_rng,
)

__all__ = ["IllegalAction", "MalformedAction", "Outcome", "Termination", "derive_rng"]
