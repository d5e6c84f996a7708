"""Invariants every game and variant must keep, checked along random games (hypothesis).

Game-specific properties (Abande's chain, Accasta's 3-per-colour limit, Dame 100's
majority capture ...) are tested beside each game; this file makes sure that any game
registered in ``rules.GAMES``, present or future, keeps the contract the rest of the
program relies on: pieces are never created or lost, stacks stay within the game's
height and are ones vision reads (``can_stand``) and takes for usual (``usual_stacks``),
every listed turn can be written and read back and applies, take-backs restore the position
exactly, and the visible board is what the camera can compare with.
"""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import GAMES, new_game


@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(20, 300))
def test_random_games_keep_the_contract(name, seed, plies):
    board = new_game(name)
    rng = random.Random(seed)
    material = board.material()
    names = set(board.geometry.names)
    usual = set(board.usual_stacks())
    for _ in range(plies):
        if board.outcome() is not None:
            assert board.legal_turns() == [], "no turns once the game is over"
            break
        turns = board.legal_turns()
        assert turns, f"{name}: no legal turn but no outcome either"
        assert len(set(turns)) == len(turns), "each turn is listed once"
        before = board.key()
        sample = rng.sample(turns, min(len(turns), 8))
        for turn in sample:
            text = board.turn_notation(turn)
            assert board.parse_turn(text) == turn, f"{name}: {text!r} does not read back"
            board.push(turn)
            board.pop()
            assert board.key() == before, f"{name}: pop after {text!r} does not restore the position"
        board.push(rng.choice(turns))
        visible = board.visible()
        assert set(visible) == names
        assert all(set(s) <= {"w", "b"} for s in visible.values())
        assert max(map(len, visible.values())) <= board.max_height
        assert all(board.can_stand(s) for s in visible.values() if s), f"{name}: a stack vision would not read"
        assert all(s in usual for s in visible.values() if s), f"{name}: a stack vision takes for unusual"
        assert board.material() == material, f"{name}: pieces created or lost"
        if board.discs_per_player is not None:
            discs = "".join(visible.values())
            assert discs.count("w") == discs.count("b") == board.discs_per_player, f"{name}: discs left the board"
