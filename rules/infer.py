"""Move inference: which legal turn turned the last position into what the camera sees.

The camera never sees a move, only boards.  :func:`infer` takes the game so far (a
:class:`GameState`: the confirmed :class:`~rules.base.Board` plus a turn seen but not
yet confirmed) and an :class:`Observation` (point -> stack string, ``?`` for layers
whose colour could not be read, and a confidence per point) and answers with an
:class:`Inference` of one of these kinds:

``turn``       exactly one legal turn (or several leading to the same position) fits;
``partial``    no complete turn fits, but the unfinished start of one does (a draughts
               capture whose pieces are not all lifted yet, an attraction half done);
``ambiguous``  several turns leading to different positions fit what can be seen;
``illegal``    nothing fits: the nearest legal turns and the points that differ;
``unchanged``  the board is as it was;
``restored``   the board went back to an earlier position of the game (a take-back).

Vision's uncertainty: a ``?`` layer matches any colour, a point left out matches any
stack, and a point read with confidence below ``LOW_CONFIDENCE`` may be overruled by
a turn that fits every other point and is unique; a confident reading is never
overruled, and a change seen only on uncertain points is no turn (``unchanged``).  A
reading sure that a point holds a stack, or none (``presence``), is as firm about that
as a confident one, however unsure which stack it is, and as sure of its top colour where
turns are weighed by the readings they override.  A board no single turn explains may
be two turns: one seen only unsure on the board before, or one on points whose readings say
next to nothing, or a longer turn than the pending one (its last move read unsure), then
the reply; or up to :data:`MISSED_TURNS` turns played while the camera saw no board, each
read surely somewhere it changed the board (:func:`_missed`).  A turn seen unsure before and a
reply that fit every reading are preferred to one turn that fits only by overriding readings.
Readings the players have confirmed wrong (:meth:`GameState.accept`) say the record's stack
for as long as they stay the same.

Matching compares visible boards, not lists of moves: every legal turn is reduced
once per position to the points it changes (cached), so each observation costs a
few set operations per group of turns changing the same points.

Games may refine the generic behaviour with optional methods on their board class
(every one has a default here, used when the game does not define it):

``turn_results()``        ``[(turn, {point index: stack after})]`` for every legal turn,
                          faster than pushing and popping each one;
``partial_chains(turn)``  the steps players carry a turn out in (see :func:`partial_chains`);
``explain_illegal(seen)`` why the board ``seen`` (point name -> stack, ``?`` allowed)
                          cannot follow a legal turn, in a player's words, or ``None``;
and on the turn type:

``extends(shorter)``      whether this turn goes on from the turn ``shorter`` (Accasta's
                          turns of up to three moves; without it no turn goes on).

>>> Observation.from_json({"points": {"a1": "w?"}, "confidence": {"a1": 0.4}}).confidence["a1"]
0.4
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Iterator, Literal, Mapping, Sequence

from rules.base import COLOUR_NAMES, Board, Outcome, other

Kind = Literal["turn", "partial", "ambiguous", "illegal", "unchanged", "restored"]

LOW_CONFIDENCE = 0.6
"""A point read with confidence below this may be overruled by an otherwise unique turn.
The stack reader's confidences are calibrated so that on held-out rendered films no
wrong reading reaches 0.6 (a few reach 0.5: a disc set back before its own shadow looks
like two); a turn itself changes points read far surer than that."""

MAX_CANDIDATES = 12
"""Ambiguous and partial answers list at most this many readings, best first."""
TENTATIVE_TURNS = 3
"""At most this many turns in a row seen only unsure are kept tentative (:attr:`GameState.tentative`)."""
MISSED_TURNS = 4
"""A board no turn or turn and reply explains may be the last of up to this many turns played
while the camera saw no board (unplugged, covered, turned away): see :func:`_missed`."""
MISSED_LINES = 60
"""The lines of turns :func:`_missed` follows at most, per number of turns: more, and the board
says too little to tell which were played (and following each costs a position's turns)."""
REPLY_TIE = 0.05
"""Turns confirmed with a reply that fit the board by overriding readings, scored by how
unsure those readings are (:func:`_score`), are told apart only
by more than this.  On ``benchmarks/turns.py`` (seeds 1 and 2, 4,700 turns) this turned the
3 turns recorded wrong into ambiguous boards, and left 11 more turns to the players."""

UNSEEN_CONFIDENCE = 0.05
"""A reading less sure than this says next to nothing of its point: a turn changing only such
points may have gone unseen, and is tried before a reply that fits no single turn.  Readings
a little surer (0.4-0.6: empty dark cells of Attraktion 8x8) let a sure misreading elsewhere
pass for such a turn and a reply (benchmarks/turns.py, seed 2)."""

Changes = dict[int, str]
"""Point index -> stack after the turn, for the points a turn changes."""


# --- the observation ------------------------------------------------------------------------

@dataclass(frozen=True)
class Observation:
    """What vision read: point name -> stack (bottom to top, ``w``/``b``/``?``).

    A point missing from ``points`` was not seen at all (a hand over it) and matches
    anything; ``confidence`` (0..1) defaults to 1 for every point given.

    >>> obs = Observation({"d4": "w?", "d5": ""}, {"d5": 0.3})
    >>> obs.conf("d4"), obs.conf("d5"), Observation.from_json(obs.to_json()) == obs
    (1.0, 0.3, True)
    """

    points: dict[str, str]
    confidence: dict[str, float] = field(default_factory=dict)
    presence: dict[str, float] = field(default_factory=dict)
    """How sure the reading is of whether a point holds a stack at all (0..1, defaults to its
    ``confidence``): a disc just placed, seen steeply from above, is surely there though its
    height is not sure."""

    def conf(self, point: str) -> float:
        return self.confidence.get(point, 1.0)

    def presence_conf(self, point: str) -> float:
        return self.presence.get(point, self.conf(point))

    def sure_against(self, point: str, expected: str, threshold: float = LOW_CONFIDENCE) -> bool:
        """Whether the reading of ``point``, where it does not fit ``expected``, surely says
        otherwise: it is at least ``threshold`` sure, or that sure that a stack is there where
        ``expected`` has none, or the reverse (:attr:`presence`).

        >>> obs = Observation({"a1": "w", "a2": "b"}, {"a1": 0.4, "a2": 0.4}, {"a2": 0.9})
        >>> obs.sure_against("a1", "b"), obs.sure_against("a2", ""), obs.sure_against("a2", "w")
        (False, True, False)
        """
        return self.conf(point) >= threshold or (
            self.presence_conf(point) >= threshold and (expected == "") != (self.points.get(point) == ""))

    def fused(self, later: "Observation") -> "Observation":
        """Two readings of the same still picture as one: every point as ``later`` read it (or
        this one, where ``later`` did not see it), and where both read the same stack, as sure
        as the surer of the two.

        >>> first = Observation({"d4": "w", "d5": "b"}, {"d5": 0.9})
        >>> again = Observation({"d4": "", "d5": "b"}, {"d4": 0.3, "d5": 0.4})
        >>> fused = first.fused(again)
        >>> fused.points, fused.conf("d4"), fused.conf("d5")
        ({'d4': '', 'd5': 'b'}, 0.3, 0.9)
        """
        points = {**self.points, **later.points}
        confidence: dict[str, float] = {}
        presence: dict[str, float] = {}
        for name, stack in points.items():
            readings = [o for o in (later, self) if o.points.get(name) == stack]
            confidence[name] = max(o.conf(name) for o in readings)
            presence[name] = max(o.presence_conf(name) for o in readings)
        return Observation(points, confidence, presence)

    @classmethod
    def from_json(cls, data: Any) -> "Observation":
        """Read ``{"points": {...}, "confidence": {...}}``; ``ValueError`` naming what is wrong."""
        if not isinstance(data, dict) or not isinstance(data.get("points"), dict):
            raise ValueError('an observation is a JSON object with a "points" object (point -> stack)')
        points: dict[str, str] = {}
        for name, stack in data["points"].items():
            if stack is None:
                stack = ""
            if not isinstance(stack, str) or set(stack) - set("wb?"):
                raise ValueError(f"stack at {name} must be a string of w, b and ?, got {stack!r}")
            points[str(name)] = stack
        return cls(points, _shares(data, "confidence"), _shares(data, "presence"))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"points": dict(self.points), "confidence": dict(self.confidence)}
        if self.presence:
            out["presence"] = dict(self.presence)
        return out

    def check(self, board: Board[Any]) -> None:
        """``ValueError`` if a point is not on ``board``'s geometry."""
        unknown = [n for n in [*self.points, *self.confidence, *self.presence] if n not in board.geometry]
        if unknown:
            raise ValueError(f"no point {unknown[0]!r} on the {board.title} board")


def _shares(data: dict[str, Any], key: str) -> dict[str, float]:
    """An observation's ``key`` object (point -> number 0..1), checked; empty when missing."""
    given = data.get(key) or {}
    if not isinstance(given, dict):
        raise ValueError(f'"{key}" must be an object (point -> number 0..1)')
    out: dict[str, float] = {}
    for name, value in given.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise ValueError(f"{key} at {name} must be a number from 0 to 1, got {value!r}")
        out[str(name)] = float(value)
    return out


# --- the answer -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Difference:
    """One point where the observation disagrees with a position the rules expected."""

    point: str
    expected: str
    seen: str
    confidence: float

    def to_json(self) -> dict[str, Any]:
        return {"point": self.point, "expected": self.expected, "seen": self.seen, "confidence": self.confidence}

    def __str__(self) -> str:
        return f"{self.point}: expected {self.expected or 'empty'}, seen {self.seen or 'empty'}"


@dataclass(frozen=True)
class Candidate:
    """One reading of the observation: the turns it implies, in playing order.

    ``turns`` is usually one turn; it is two when a turn was confirmed by the opponent's
    reply (an Accasta turn left unfinished, a pass in Abande or Alva)."""

    turns: tuple[Any, ...]
    notations: tuple[str, ...]
    score: float
    overridden: tuple[str, ...] = ()
    """Low-confidence points whose reading this candidate overrules."""
    differences: tuple[Difference, ...] = ()
    may_continue: bool = False
    remaining: tuple[str, ...] = ()
    """For a partial turn: the steps still to be carried out, in words."""

    @property
    def notation(self) -> str:
        return " ".join(self.notations)

    def to_json(self) -> dict[str, Any]:
        return {
            "turn": self.notation, "turns": list(self.notations), "score": round(self.score, 4),
            "overridden": list(self.overridden), "may_continue": self.may_continue,
            "remaining": list(self.remaining), "differences": [d.to_json() for d in self.differences],
        }


@dataclass(frozen=True)
class Inference:
    """The answer of :func:`infer`; ``candidates[0]`` is the best reading where there is one."""

    kind: Kind
    message: str
    candidates: tuple[Candidate, ...] = ()
    differences: tuple[Difference, ...] = ()
    restored_ply: int | None = None
    """For ``restored``: the ply count of the position the board went back to."""
    confirmed: bool = False
    """For ``turn``: the turn(s) are final (cannot go on, the opponent replied, or "turn done")."""
    missed: bool = False
    """For ``turn`` and ``ambiguous``: several turns were played while the board was not seen
    (:func:`_missed`), for the players to check."""

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None

    @property
    def turns(self) -> tuple[Any, ...]:
        """The turns to play for a ``turn`` (empty otherwise)."""
        return self.best.turns if self.kind == "turn" and self.best else ()

    @property
    def turn(self) -> Any:
        """The inferred turn (the last of :attr:`turns`) or ``None``."""
        return self.turns[-1] if self.turns else None

    @property
    def notation(self) -> str | None:
        return self.best.notation if self.kind in ("turn", "partial") and self.best and (
            self.kind == "turn" or len(self.candidates) == 1) else None

    @property
    def may_continue(self) -> bool:
        return self.kind in ("turn", "unchanged") and self.best is not None and self.best.may_continue

    def to_json(self) -> dict[str, Any]:
        best = self.best
        return {
            "kind": self.kind,
            "turn": self.notation,
            "may_continue": self.may_continue,
            "confirmed": self.confirmed,
            "missed": self.missed,
            "score": round(best.score, 4) if best and self.kind in ("turn", "partial") else None,
            "overridden": list(best.overridden) if best and self.kind == "turn" else [],
            "remaining": list(best.remaining) if best and self.kind == "partial" else [],
            "restored_ply": self.restored_ply,
            "candidates": [c.to_json() for c in self.candidates],
            "differences": [d.to_json() for d in self.differences],
            "message": self.message,
        }


# --- game hooks with their generic defaults -------------------------------------------------

def turn_results(board: Board[Any]) -> list[tuple[Any, Changes]]:
    """Every legal turn with the points it changes (``board.turn_results()`` if the game has it).

    The generic way plays each turn (:func:`played_changes`); pieces in hand, captured
    pieces and the stock change with the board state but are not visible."""
    hook = getattr(board, "turn_results", None)
    if hook is not None:
        return list(hook())
    return [(turn, played_changes(board, turn)) for turn in board.legal_turns()]


def played_changes(board: Board[Any], turn: Any) -> Changes:
    """The stacks ``turn`` changes (index -> stack after), found by playing it and taking it back."""
    before = list(board.stacks)
    board.push(turn)
    try:
        return {i: s for i, (s, b) in enumerate(zip(board.stacks, before)) if s != b}
    finally:
        board.pop()


Step = tuple[Changes, str]
"""One step of carrying out a turn: the points it sets (index -> stack) and its description."""


def partial_chains(board: Board[Any], turn: Any, changes: Changes) -> list[list[Step]]:
    """How players carry out ``turn`` on the real board, as independent chains of steps.

    Each chain is done in order; different chains touch different points and may be
    done in any order.  A board where every chain is done up to some step (and not all
    of them completely) is the ``partial`` start of the turn.  The generic default makes
    every changed point its own one-step chain (so any mix of "already changed" and "not
    yet" points is a partial turn: a piece lifted but not put down, captured pieces not
    all removed).  Games whose turns pass through states that are neither the old nor
    the new stack on some point (a draughts piece on an intermediate landing square, a
    train of attracted pieces) define ``partial_chains(turn, changes)`` on their board.
    """
    hook = getattr(board, "partial_chains", None)
    if hook is not None:
        return list(hook(turn, changes))
    names = board.geometry.names
    return [[({i: s}, f"{names[i]}: {_show(board.stacks[i])} -> {_show(s)}")] for i, s in sorted(changes.items())]


def turn_extends(longer: Any, shorter: Any) -> bool:
    """Whether turn ``longer`` is turn ``shorter`` carried further by the same player.

    The turn type says so with an ``extends(prefix)`` method (Accasta's turns: same
    origin, moves a proper prefix); turns without one never extend each other."""
    extends = getattr(longer, "extends", None)
    return bool(extends(shorter)) if extends is not None else False


@dataclass(frozen=True)
class Movement:
    """Pieces seen to have moved from one point (or come from the hand): what left it and
    where each part landed.

    Found by :func:`movement` from the stacks alone, for games whose ``explain_illegal``
    needs the turn the players tried (a stack moved too far, onto too many pieces, a
    piece placed where it may not go)."""

    source: int | None
    """The point the pieces left; ``None`` for one piece placed from the hand."""
    left: str
    """The pieces that left ``source`` (bottom to top)."""
    landed: dict[int, str]
    """Destination index -> the pieces that arrived on top of it."""


def movement(board: Board[Any], seen: dict[str, str]) -> Movement | None:
    """The single source and the destinations of pieces moved between ``board`` and ``seen``.

    ``None`` unless every changed point is fully read (no ``?``) and either exactly one
    point lost pieces from its top and the pieces it lost are the ones that arrived on
    top of the others, or nothing was lost and a single piece arrived (a placement).

    >>> from rules import new_game
    >>> m = movement(new_game("accasta"), {"c3": "", "d3": "w"})
    >>> m.source, m.left, m.landed
    (11, 'w', {17: 'w'})
    >>> movement(new_game("abande"), {"d4": "b"})
    Movement(source=None, left='', landed={18: 'b'})
    """
    sources, landed = [], {}
    for name, stack in seen.items():
        i = board.geometry.index(name)
        before = board.stacks[i]
        if stack == before:
            continue
        if "?" in stack:
            return None
        if before.startswith(stack):
            sources.append((i, before[len(stack):]))
        elif stack.startswith(before):
            landed[i] = stack[len(before):]
        else:
            return None
    if not sources and len(landed) == 1 and len(next(iter(landed.values()))) == 1:
        return Movement(None, "", landed)
    if len(sources) != 1 or not landed or sum(map(len, landed.values())) != len(sources[0][1]):
        return None
    return Movement(sources[0][0], sources[0][1], landed)


def _show(stack: str) -> str:
    return stack or "empty"


# --- the game state -------------------------------------------------------------------------

@dataclass
class _Position:
    """What inference needs of one position, computed once and cached."""

    outcome: Outcome | None
    results: list[tuple[Any, Changes]]
    groups: dict[frozenset[int], list[int]]
    longer: dict[Any, list[tuple[Any, Changes]]] | None = None
    """Turns of several moves, with their changes, by their first move (filled on demand: :func:`_same_start`)."""


class GameState:
    """A game as the live loop sees it: the confirmed board plus a turn seen but not final.

    ``pending`` is a turn that matched the last observation but may still go on (an
    Accasta turn of one or two moves); it is confirmed when it cannot go on, when the
    opponent starts to move, or on an explicit "turn done" (:meth:`turn_done`).

    :meth:`update` infers a turn from an observation and applies what is certain.

    >>> from rules import new_game
    >>> state, camera = GameState(new_game("accasta")), new_game("accasta")
    >>> _ = camera.push_notation("b4:2-c5")
    >>> state.update(Observation(camera.visible())).message
    'white played b4:2-c5 (same position as b4:-c5,+c5)'
    >>> _ = camera.push_notation("f4:-e5")  # Black's turn could go on: it stays pending
    >>> r = state.update(Observation(camera.visible()))
    >>> r.message, state.board.ply, state.pending is not None
    ('black played f4:-e5; the turn may go on', 1, True)
    """

    def __init__(self, board: Board[Any], low_confidence: float = LOW_CONFIDENCE) -> None:
        self.board = board
        self.pending: Any = None
        self.tentative: list[tuple[Any, ...]] = []
        """Turns the last board may have shown without being sure, each a sequence of turns from
        the record (after the :attr:`pending` turn, if any): the one legal turn that fits a change
        seen only on uncertain readings (no turn on its own: a shadow may look like a piece), or
        the candidates of an ambiguous board (a turn and a reply, where the board before was
        ambiguous too); and where the board before was unsure too, its tentative turns followed
        by a reply that fits (up to :data:`TENTATIVE_TURNS` in a line, as for candidates).  If the
        next board fits no single turn, each of them followed by a turn is tried, so unsure or
        ambiguous readings of real turns do not make every later board illegal."""
        self.low_confidence = low_confidence
        self.misread: dict[int, tuple[str, str]] = {}
        """Readings the players have said are wrong (:meth:`accept`): point index -> (the stack
        the record has there, the stack read).  While the same reading is seen there it says the
        record's stack is still there (or the one read, if a turn makes it so), so a disc the
        camera keeps misreading does not make every later board illegal, and a turn that puts
        anything else there changes the reading and is seen as ever."""
        self._cache: dict[Any, _Position] = {}
        self._history: list[tuple[int, list[str]]] | None = None

    def position(self) -> _Position:
        """The outcome and turn results of the board as it is now (cached by position)."""
        board = self.board
        key = board.key()
        pos = self._cache.get(key)
        if pos is None:
            outcome = board.outcome()
            results = turn_results(board) if outcome is None else []
            groups: dict[frozenset[int], list[int]] = {}
            for n, (_, changes) in enumerate(results):
                groups.setdefault(frozenset(changes), []).append(n)
            pos = _Position(outcome, results, groups)
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[key] = pos
        return pos

    def history(self) -> list[tuple[int, list[str]]]:
        """(ply, stacks) of every earlier position of the game, most recent first."""
        if self._history is None:
            b = self.board.copy()
            self._history = []
            while b.move_stack:
                b.pop()
                self._history.append((b.ply, list(b.stacks)))
        return self._history

    def visible_now(self) -> list[str]:
        """The stacks the board should show now (after the pending turn, if any)."""
        with _pushed(self.board, () if self.pending is None else (self.pending,)):
            return list(self.board.stacks)

    def push(self, turns: Iterable[Any]) -> None:
        for t in turns:
            self.board.push(t)
        self.pending = None
        self.tentative = []
        self._history = None
        stacks = self.board.stacks
        self.misread = {i: m for i, m in self.misread.items() if stacks[i] == m[0]}

    def accept(self, observation: Observation) -> dict[str, tuple[str, str]]:
        """The players say the record is right as it stands (they confirmed a turn the board
        did not show): every reading of ``observation`` that does not fit it is a misreading,
        which says the record's stack for as long as both stay the same (:attr:`misread`).
        Returns them: point -> (the record's stack, the stack read).

        >>> from rules import new_game
        >>> state = GameState(new_game("abande"))
        >>> _ = state.board.push_notation("d4")
        >>> state.accept(Observation({"d4": "w"}))  # Black's disc, that the camera sees as white
        {'d4': ('b', 'w')}
        >>> state.update(Observation({"d4": "w", "c3": "w"})).message  # and White's reply
        'white played c3'
        """
        now = self.visible_now()
        index = self.board.geometry.index
        taken = {}
        for name, stack in observation.points.items():
            i = index(name)
            if not self.board.stack_fits(now[i], stack):
                self.misread[i] = taken[name] = (now[i], stack)
        return taken

    def misreadings(self, observation: Observation) -> dict[str, str]:
        """The points of ``observation`` read as the players have said is wrong (:attr:`misread`),
        each with the record's stack there."""
        if not self.misread:
            return {}
        now = self.visible_now()
        names = self.board.geometry.names
        return {names[i]: stack for i, (stack, read) in self.misread.items()
                if now[i] == stack and observation.points.get(names[i]) == read}

    def turn_done(self) -> None:
        """The players said the pending turn is finished: play it."""
        if self.pending is not None:
            self.push([self.pending])

    def update(self, observation: Observation, done: bool = False) -> Inference:
        """Infer from ``observation`` and apply it: a final turn is played, an unfinished one
        becomes :attr:`pending`, a take-back pops the board back.  Returns the inference."""
        return self.apply(infer(self, observation, done=done), observation, done)

    def apply(self, result: Inference, observation: Observation, done: bool = False) -> Inference:
        """Apply ``result``, :func:`infer`'s answer for ``observation`` (see :meth:`update`)."""
        if result.kind == "unchanged" and not done:
            self.tentative = _tentative(self, observation)
        elif result.kind == "ambiguous" and self.pending is None:
            self.tentative = [c.turns for c in result.candidates if len(c.turns) <= TENTATIVE_TURNS]
        else:
            self.tentative = []
        if result.kind == "turn":
            turns = result.turns
            if result.confirmed:
                self.push(turns)
            else:
                self.push(turns[:-1])
                self.pending = turns[-1]
        elif result.kind == "partial" and result.best is not None and len(result.best.turns) > 1:
            self.push(result.best.turns[:-1])  # the opponent started: the pending turn is final
        elif result.kind == "unchanged" and done:
            self.turn_done()
        elif result.kind == "restored" and result.restored_ply is not None:
            while self.board.ply > result.restored_ply and self.board.move_stack:
                self.board.pop()
            self.pending = None
            self._history = None
        return result


# --- matching ------------------------------------------------------------------------------

@dataclass
class _Seen:
    """The observation turned into per-index lists for fast comparison."""

    stacks: list[str | None]
    """Seen stack per point index, ``None`` where the point was not seen."""
    conf: list[float]
    low: list[bool]
    present: list[bool]
    """Whether the point surely holds a stack, or surely none, as read (:attr:`Observation.presence`)."""
    presence: list[float]
    """:attr:`Observation.presence` per point."""
    known: dict[int, str]
    """Points read as the players have said is wrong (:attr:`GameState.misread`) -> the record's
    stack there: the same misreading says that stack is still there."""

    @classmethod
    def of(cls, board: Board[Any], obs: Observation, threshold: float, known: dict[str, str] | None = None
           ) -> "_Seen":
        names = board.geometry.names
        stacks = [obs.points.get(n) for n in names]
        conf = [obs.conf(n) for n in names]
        presence = [obs.presence_conf(n) for n in names]
        index = board.geometry.index
        return cls(stacks, conf, [c < threshold for c in conf], [p >= threshold for p in presence], presence,
                   {index(n): s for n, s in (known or {}).items()})

    def agrees(self, fits: Any, i: int, expected: str) -> bool:
        """Whether point ``i``'s reading fits ``expected`` (a point not seen fits anything; a
        known misreading fits the stack it was confirmed for as well as what it reads)."""
        seen = self.stacks[i]
        return seen is None or fits(expected, seen) or (i in self.known and expected == self.known[i])

    def firm(self, i: int, expected: str) -> bool:
        """Whether point ``i``'s reading, where it does not fit ``expected``, surely says otherwise:
        a sure reading, one sure that a stack is there where ``expected`` has none (or the
        reverse), however unsure which stack it is, or a known misreading (which says its
        stack is unchanged)."""
        return (not self.low[i] or i in self.known
                or (self.present[i] and (expected == "") != (self.stacks[i] == "")))

    def against(self, fits: Any, i: int, expected: str) -> float:
        """How surely point ``i``'s reading says it is not ``expected`` (0..1): its confidence,
        or, where it reads a stack whose top colour ``expected`` cannot have, its presence, which
        is as sure as that top colour is.  A stack's height is what a steep camera misreads
        (a disc's side a few pixels tall); its top face it sees well.  On ``benchmarks/turns.py
        --elevation 60-75`` (seed 8806) a turn of Accasta ambiguous by its own board was
        confirmed with the reply as the one leaving a white top's point black, read '?w' at
        confidence 0 but presence 0.99, over the one whose only misreading was a height at 0.15.

        >>> from rules import new_game
        >>> board = new_game("accasta")
        >>> seen = _Seen.of(board, Observation({"c6": "?w"}, {"c6": 0.0}, {"c6": 0.99}), LOW_CONFIDENCE)
        >>> c6 = board.geometry.index("c6")
        >>> [seen.against(board.stack_fits, c6, s) for s in ("b", "bb", "w", "bbw")]
        [0.99, 0.99, 0.0, 0.0]
        """
        seen = self.stacks[i]
        if seen and expected and seen[-1] != "?" and not fits(expected, "?" * (len(expected) - 1) + seen[-1]):
            return max(self.conf[i], self.presence[i])
        return self.conf[i]


def _mismatches(fits: Any, seen: _Seen, expected: Sequence[str] | Mapping[int, str], points: Iterable[int]
                ) -> list[int]:
    return [i for i in points if not seen.agrees(fits, i, expected[i])]


def _diffs(board: Board[Any], seen: _Seen, expected: Sequence[str], points: Iterable[int]) -> tuple[Difference, ...]:
    names = board.geometry.names
    return tuple(Difference(names[i], expected[i], seen.stacks[i] or "", seen.conf[i]) for i in points)


def _score(fits: Any, seen: _Seen, overridden: Iterable[tuple[int, str]]) -> float:
    """How well a board fits whose stacks disagree with some readings (``overridden``: point,
    the board's stack there): the product of one minus how surely each reading says otherwise
    (:meth:`_Seen.against`)."""
    s = 1.0
    for i, expected in overridden:
        s *= 1.0 - seen.against(fits, i, expected)
    return s


@dataclass
class _Match:
    index: int
    overridden: list[int]
    evidence: int
    score: float
    """:func:`_score` of the turn's board."""


def _match_turns(board: Board[Any], pos: _Position, seen: _Seen, base: Sequence[str]) -> tuple[list[_Match], list[_Match]]:
    """(exact, overriding) matches of the legal turns of ``pos`` against the observation.

    ``base`` is the board before the turns.  A turn fits if every seen point fits its
    stack after the turn; it "overrides" if only low-confidence points disagree."""
    fits = board.stack_fits
    differ = _mismatches(fits, seen, base, range(len(base)))
    confident = frozenset(i for i in differ if seen.firm(i, base[i]))
    exact: list[_Match] = []
    override: list[_Match] = []
    for points, members in pos.groups.items():
        if not confident <= points:
            continue
        outside = [i for i in differ if i not in points]  # all low-confidence here
        for n in members:
            changes = pos.results[n][1]
            bad = _disagreements(board, seen, outside, changes)
            if any(seen.firm(i, changes.get(i, base[i])) for i in bad):
                continue
            evidence = sum(1 for i in changes if (stack := seen.stacks[i]) is not None and "?" not in stack)
            score = _score(fits, seen, ((i, changes.get(i, base[i])) for i in bad))
            (override if bad else exact).append(_Match(n, bad, evidence, score))
    return exact, _undominated(override)


def _undominated(matches: list[_Match]) -> list[_Match]:
    """The matches no other match beats on every reading: one overriding a strict subset of
    another's overridden readings explains all that one does and more (a turn that also
    needs the unsure readings where the other fits to be misread is the likelier only by
    chance).

    >>> found = [_Match(0, [3], 1, 0.9), _Match(1, [3, 5], 1, 0.8), _Match(2, [7], 1, 0.9), _Match(3, [3], 2, 0.9)]
    >>> [m.index for m in _undominated(found)]  # 1 needs 5 misread as well as 3, where 0 fits
    [0, 2, 3]
    """
    sets = [frozenset(m.overridden) for m in matches]
    return [m for m, mine in zip(matches, sets) if not any(other < mine for other in sets)]


def _disagreements(board: Board[Any], seen: _Seen, outside: list[int], changes: Changes) -> list[int]:
    """The points where a turn's result and the observation disagree: ``outside`` (points the
    turn does not change but the observation shows changed) plus changed points misread."""
    fits = board.stack_fits
    return outside + [i for i, s in changes.items() if not seen.agrees(fits, i, s)]


def _position_keys(board: Board[Any], pos: _Position, indices: Iterable[int]) -> dict[int, Any]:
    out = {}
    for n in indices:
        with _pushed(board, (pos.results[n][0],)):
            out[n] = board.key()
    return out


def _may_continue(board: Board[Any], pos: _Position, turn: Any) -> bool:
    """Whether a legal turn of the same position goes on from ``turn``."""
    return any(turn_extends(t, turn) for t, _ in _same_start(pos, turn))


def _same_start(pos: _Position, turn: Any) -> list[tuple[Any, Changes]]:
    """The legal turns of ``pos`` of several moves that may go on from ``turn`` (the same
    first move), with their changes."""
    if not hasattr(turn, "extends"):
        return []
    if pos.longer is None:
        # Only turns with more moves can extend one: index them by their first move.
        pos.longer = {}
        for t, changes in pos.results:
            if _length(t) > 1:
                pos.longer.setdefault(_first(t), []).append((t, changes))
    return pos.longer.get(_first(turn), [])


def _same_origin(pos: _Position, turn: Any) -> list[Any]:
    """The other legal turns of ``pos`` from ``turn``'s origin (the turn type's ``origin``:
    Accasta's stack moved), but those that go on from it; none where turns have no origin."""
    origin = getattr(turn, "origin", None)
    if origin is None:
        return []
    return [t for t, _ in pos.results
            if getattr(t, "origin", None) == origin and t != turn and not turn_extends(t, turn)]


def _sharing(pos: _Position, turn: Any) -> list[Any]:
    """The other legal turns of ``pos`` that make one of ``turn``'s changes (a point left with
    the same stack), one per board."""
    mine = next(changes for t, changes in pos.results if t == turn)
    made = set(mine.items())
    sharing = [(turn, mine)] + [(t, changes) for t, changes in pos.results if made & set(changes.items())]
    return [t for t, _ in _one_per_board(sharing, None) if t != turn]


def _first(turn: Any) -> Any:
    """A bucket for turns that may extend each other: origin and first move where the turn
    type has them (``None`` otherwise, one bucket for all)."""
    moves = getattr(turn, "moves", None)
    return (getattr(turn, "origin", None), moves[0]) if isinstance(moves, tuple) and moves else None


def infer(state: GameState | Board[Any], observation: Observation, done: bool = False) -> Inference:
    """Which legal turn produced ``observation`` from the game ``state`` (see the module doc).

    ``done`` is the players' explicit "turn done" signal: a matched turn is then final
    even if the rules would let it go on."""
    if not isinstance(state, GameState):
        state = GameState(state)
    board = state.board
    observation.check(board)
    seen = _Seen.of(board, observation, state.low_confidence, state.misreadings(observation))
    fits = board.stack_fits

    now = state.visible_now()
    moved = _mismatches(fits, seen, now, range(len(now)))
    if not any(seen.firm(i, now[i]) for i in moved):
        # Nothing changed, or only readings too uncertain to show a turn on their own
        # (a shadow read as a piece): wait for a confident reading.
        return _unchanged(state, seen, moved)

    pos = state.position()
    outcome = pos.outcome
    exact, override = _match_turns(board, pos, seen, board.stacks)
    if exact:
        return _turn_inference(state, pos, (), exact, seen, done)

    if override:
        # A turn that fits only by overriding unsure readings beats an earlier position the
        # readings fit exactly: the points that tell them apart are those unsure readings, and
        # a game goes on far more often than it is taken back (an Alva capture whose landing
        # disc read the other colour, unsure, was taken for a take-back of two turns,
        # benchmarks/turns.py, seed 1).
        return _seen_before(state, seen, done) or _turn_inference(state, pos, (), override, seen, done)
    restored = _restored(state, seen)
    if restored is not None:
        return restored

    if outcome is None:
        reply = _reply(state, seen, done)
        if reply is not None:
            return reply
        partial = _partial(state, pos, seen) or _reply(state, seen, done, partial=True)
        if partial is not None:
            return partial
        missed = _missed(state, seen, done)
        if missed is not None:
            return missed
    if outcome is not None:
        return Inference("illegal", f"the game is over ({outcome.reason}); the board should not change",
                         differences=_diffs(board, seen, now, moved))
    return _illegal(state, pos, seen)


def _unchanged(state: GameState, seen: _Seen, overridden: list[int]) -> Inference:
    """``unchanged``, overriding the low-confidence points that disagree (``overridden``)."""
    board = state.board
    names = board.geometry.names
    cands: tuple[Candidate, ...] = ()
    if state.pending is not None:
        cands = (Candidate((state.pending,), (board.turn_notation(state.pending),),
                           _score(board.stack_fits, seen, ((i, board.stacks[i]) for i in overridden)),
                           tuple(names[i] for i in overridden),
                           may_continue=_may_continue(board, state.position(), state.pending)),)
    msg = "the board is unchanged"
    if overridden:
        msg += f" (overriding the uncertain reading of {', '.join(names[i] for i in overridden)})"
    return Inference("unchanged", msg, cands)


def _turn_inference(state: GameState, pos: _Position, prefix: tuple[Any, ...], matches: list[_Match],
                    seen: _Seen, done: bool) -> Inference:
    """A ``turn`` (one position fits) or ``ambiguous`` (several) from the matched turns of
    the position after ``prefix`` (``state.board`` is already in that position)."""
    board = state.board
    names = board.geometry.names
    prefix_notes = tuple(state.board.notations(len(prefix)))
    keys = _position_keys(board, pos, [m.index for m in matches]) if len(matches) > 1 else {matches[0].index: None}
    by_key: dict[Any, list[_Match]] = {}
    for m in matches:
        by_key.setdefault(keys[m.index], []).append(m)

    def candidate(m: _Match) -> Candidate:
        turn = pos.results[m.index][0]
        return Candidate(prefix + (turn,), prefix_notes + (board.turn_notation(turn),), m.score,
                         tuple(names[i] for i in m.overridden),
                         _diffs(board, seen, _after(board.stacks, pos.results[m.index][1]), m.overridden),
                         _may_continue(board, pos, turn))

    pending = state.pending if not prefix else None

    def rank(m: _Match) -> tuple[float, bool, int, int]:
        # Among turns that fit equally, one that goes on from the pending turn is what was seen.
        turn = pos.results[m.index][0]
        goes_on = pending is None or turn == pending or turn_extends(turn, pending)
        return (-m.score, not goes_on, -m.evidence, _length(turn))

    groups = sorted(by_key.values(), key=lambda g: rank(min(g, key=rank)))
    if len(groups) == 1:
        # Every fitting turn leads to the same position: they are one turn for the game.
        members = sorted(groups[0], key=rank)
        cands = tuple(candidate(m) for m in members)
        best = cands[0]
        who = COLOUR_NAMES[board.turn]  # the board is already after the prefix
        msg = f"{who} played {best.notations[-1]}"
        if prefix:
            msg = f"{' '.join(best.notations[:-1])} confirmed; " + msg
        if best.overridden:
            msg += f" (overriding the uncertain reading of {', '.join(best.overridden)})"
        if len(cands) > 1:
            msg += f" (same position as {', '.join(c.notations[-1] for c in cands[1:])})"
        if best.may_continue and not done:
            msg += "; the turn may go on"
        return Inference("turn", msg, cands, best.differences, confirmed=done or not best.may_continue)
    return _several(tuple(candidate(min(g, key=rank)) for g in groups[:MAX_CANDIDATES]), len(groups))


def _length(turn: Any) -> int:
    """How many moves a turn has (1 for games without multi-move turns): shorter reads first."""
    moves = getattr(turn, "moves", None)
    return len(moves) if isinstance(moves, tuple) else 1


def _after(before: Sequence[str], changes: Changes) -> list[str]:
    out = list(before)
    for i, s in changes.items():
        out[i] = s
    return out


def _restored(state: GameState, seen: _Seen) -> Inference | None:
    """``restored`` if the observation fits an earlier position exactly (most recent first)."""
    board = state.board
    current = state.visible_now()
    earlier = state.history()
    if state.pending is not None:  # the unfinished turn was taken back
        earlier = [(board.ply, list(board.stacks)), *earlier]
    for ply, stacks in earlier:
        if stacks == current:
            continue
        if not _mismatches(board.stack_fits, seen, stacks, range(len(stacks))):
            back = board.ply - ply
            what = f"take-back of {back} turn{'s' if back != 1 else ''}" if back else "the unfinished turn taken back"
            return Inference("restored", f"the board went back to the position after ply {ply} ({what})",
                             restored_ply=ply)
    return None


def _reply(state: GameState, seen: _Seen, done: bool, partial: bool = False) -> Inference | None:
    """The opponent already replied (or, with ``partial``, started to): confirm the pending
    turn, or a pass, and match the reply in the position after it; or, the reply to the
    pending turn having been seen only unsure (:attr:`GameState.tentative`), the turn after
    that reply."""
    board = state.board
    unseen: dict[int, frozenset[int]] = {}  # index in firsts of a turn maybe not seen -> the points it changes
    if state.pending is not None:
        firsts: list[tuple[Any, ...]] = [(state.pending,)]
        # The pending turn may have gone on with a move read only unsure: each longer turn it
        # starts, one per board, if its reply fits every reading (it may overrule none).
        longer = {frozenset(changes.items()): turn for turn, changes in _same_start(state.position(), state.pending)
                  if turn_extends(turn, state.pending)}
        for turn in longer.values():
            unseen[len(firsts)] = frozenset()
            firsts.append((turn,))
    else:
        firsts = list(state.tentative)
        for turn, points in _unseen_turns(state, seen, [line[0] for line in state.tentative]):
            unseen[len(firsts)] = points
            firsts.append((turn,))
        firsts += [(t,) for t, changes in state.position().results if not changes]  # passes
    if partial:
        for first in firsts:
            with _pushed(board, first):
                found = _partial(state, state.position(), seen, first)
            if found is not None:
                return found
        return None
    found = _reply_after(state, seen, done, firsts, unseen)
    # The turn before the reply was taken from a board read in part unsure (pending, or
    # tentative and taken with a reply that overrides readings): another turn from its origin,
    # or making one of its changes, may have been played instead, the unsure readings that
    # picked it being the misread ones.  Such a turn is taken where it and its reply
    # fit the readings clearly better (:data:`REPLY_TIE`), or the players say which of several.
    # (An Accasta disc moved onto f3 from g2, whose stack was read a disc too tall on both
    # boards, was recorded as moved from f4, read right on the second: benchmarks/turns.py
    # --elevation 60-70, seed 8206.)
    doubtful = _overriding(found)
    taken = state.pending if state.pending is not None else \
        found.candidates[0].turns[0] if doubtful and found is not None and len(found.candidates[0].turns) == 2 else None
    if doubtful and state.pending is not None and state.tentative:
        # The reply itself was seen only unsure (the board was taken as unchanged): the pending
        # turn, that reply and a turn after it, tried before another turn than the pending one
        # (Accasta in 26x5 discs: a capture seen unsure, then the next turn read right in full,
        # was recorded as another black turn and a white one overriding three right readings,
        # benchmarks/turns.py --discs 26x5, seed 9701).
        after_unsure = _reply_after(state, seen, done, [(state.pending, *line) for line in state.tentative], {})
        if found is None or _fits_better(after_unsure, found):
            found = after_unsure
            doubtful = _overriding(found)
    if doubtful and taken is not None:
        pos = state.position()
        others = [(turn,) for turn in dict.fromkeys(_same_origin(pos, taken) + _sharing(pos, taken))
                  if (turn,) not in firsts]
        other = _reply_after(state, seen, done, others, {}) if others else None
        if _fits_better(other, found):
            return other
    return found


def _overriding(found: Inference | None) -> bool:
    """Whether ``found`` is no answer, or one turn that fits only by overriding readings."""
    return found is None or found.kind == "turn" and bool(found.candidates[0].overridden)


def _fits_better(other: Inference | None, found: Inference | None) -> bool:
    """Whether the turns of ``other`` (one, or several to choose from) fit the readings clearly
    better than ``found``'s (by more than :data:`REPLY_TIE`)."""
    if other is None or other.kind not in ("turn", "ambiguous"):
        return False
    return max(c.score for c in other.candidates) > (found.candidates[0].score if found else 0.0) + REPLY_TIE


def _seen_before(state: GameState, seen: _Seen, done: bool) -> Inference | None:
    """A turn the last board showed unsure (:attr:`GameState.tentative`) and a reply to it
    that together fit every reading, when they are the only such pair: preferred to one turn
    that fits only by overriding readings, as the board before already showed part of it
    (a glossy black disc seen from above reads white, unsure; with the reply beside it, one
    turn of the other colour fitted by overriding both readings was recorded instead,
    benchmarks/films.py, Attangle square, seed 1)."""
    if not state.tentative:
        return None
    before = () if state.pending is None else (state.pending,)
    found = _reply_after(state, seen, done, [before + line for line in state.tentative], {})
    if found is None or found.kind != "turn" or found.candidates[0].overridden:
        return None
    return found


@contextmanager
def _pushed(board: Board[Any], turns: tuple[Any, ...]) -> Iterator[None]:
    """``board`` with ``turns`` played, taken back afterwards."""
    for t in turns:
        board.push(t)
    try:
        yield
    finally:
        for _ in turns:
            board.pop()


def _reply_after(state: GameState, seen: _Seen, done: bool, firsts: list[tuple[Any, ...]],
                 unseen: dict[int, frozenset[int]]) -> Inference | None:
    """:func:`_reply`'s match of one turn after each of ``firsts`` (turns played before it;
    ``unseen``: index in ``firsts`` -> the points of a first turn maybe not seen at all)."""
    board = state.board
    # A first turn whose reply fits every point beats one whose reply overrides readings, and
    # of those the one overriding the least sure readings wins, whichever was tried first (the
    # candidates of an ambiguous board come in no such order); where several first turns fit
    # every point, or the readings that tell them apart say next to nothing, the board is
    # ambiguous.
    exacts: list[Inference] = []
    fitting: list[Inference] = []
    for n, first in enumerate(firsts):
        with _pushed(board, first):
            pos = state.position()
            exact, override = _match_turns(board, pos, seen, board.stacks)
            if n in unseen:  # nothing was seen of it: its reply may overrule no other reading
                override = [m for m in override if unseen[n].issuperset(m.overridden)]
            if exact:
                exacts.append(_turn_inference(state, pos, first, exact, seen, done))
            elif override and not exacts:
                found = _turn_inference(state, pos, first, override, seen, done)
                if found.kind == "turn":  # overriding readings, the reply must be one turn
                    fitting.append(found)
    if len(exacts) == 1:
        return exacts[0]
    if exacts:
        cands = tuple(c for found in exacts for c in (found.candidates[:1] if found.kind == "turn" else found.candidates))
        return _several(cands)
    if not fitting:
        return None
    best = max(found.candidates[0].score for found in fitting)
    close = [found for found in fitting if found.candidates[0].score >= best - REPLY_TIE]
    if len(close) == 1:
        return close[0]
    return _several(tuple(found.candidates[0] for found in close))


def _missed(state: GameState, seen: _Seen, done: bool) -> Inference | None:
    """Turns played while the camera saw no board (it was unplugged, covered or turned away):
    the fewest, two to :data:`MISSED_TURNS` after the pending turn, whose last board fits every
    reading (or, unique, overrules unsure ones), each of them changing a point read surely.
    Lines that end on the same board are one (no board tells them apart; the one of the fewest
    moves is named); ``None`` where none fits, or where more than :data:`MISSED_LINES` lines
    would have to be followed to tell.

    A line goes on only with turns that change a point its board shows otherwise than the one
    read, and while the turns left could still bring it there: each changes at most one point
    more than the most any turn from its board changes (a capture in reply to a plain move).

    >>> from rules import new_game
    >>> camera = new_game("dame100")
    >>> for turn in ("32-28", "17-22", "28x17"):
    ...     _ = camera.push_notation(turn)
    >>> infer(new_game("dame100"), Observation(camera.visible())).message
    '3 turns played while the board was not seen: 32-28 17-22 28x17 (check them)'
    """
    board = state.board
    fits = board.stack_fits
    start = () if state.pending is None else (state.pending,)
    with _pushed(board, start):
        first_off = set(_mismatches(fits, seen, board.stacks, range(len(board.stacks))))

    def shown(candidate: Candidate) -> bool:
        """Whether each turn of ``candidate`` not seen changes a point read surely: a disc read
        sure to be there but unsure which stack is no turn no one saw (more likely a shadow)."""
        with _pushed(board, start):
            line = candidate.turns[len(start):]
            for n, turn in enumerate(line):
                with _pushed(board, line[:n]):
                    changes = played_changes(board, turn)
                if not any(not seen.low[i] and seen.stacks[i] is not None for i in changes):
                    return False
        return True

    expanded = 0
    for count in range(2, MISSED_TURNS + 1):
        lines: dict[Any, tuple[Any, ...]] = {}

        def follow(line: tuple[Any, ...], differ: set[int], left: int) -> bool:
            """Lines of ``count - 1`` turns from ``line`` (its board differing from the one read
            at ``differ``, ``left`` turns to go after it, the reply among them) into ``lines``;
            False once there are too many, or too many boards' turns were listed."""
            nonlocal expanded
            if left == 1:  # of the lines to one board, the one of the fewest moves reads first
                key = board.key()
                if key not in lines or sum(map(_length, line)) < sum(map(_length, lines[key])):
                    lines[key] = line
                return len(lines) <= MISSED_LINES
            expanded += 1
            if expanded > MISSED_LINES:
                return False
            results = state.position().results
            most = max((len(changes) for _, changes in results), default=0) + 1
            for turn, changes in results:
                after = (differ - changes.keys()).union(_mismatches(fits, seen, changes, changes))
                if not differ.isdisjoint(changes) and len(after) <= (left - 1) * most:
                    with _pushed(board, (turn,)):
                        if not follow(line + (turn,), after, left - 1):
                            return False
            return True

        with _pushed(board, start):
            if not follow(start, first_off, count):
                return None
        found = _reply_after(state, seen, done, list(lines.values()), {}) if lines else None
        if found is None:
            continue
        missed = f"{count} turns played while the board was not seen"
        best = found.best
        if found.kind == "turn" and best is not None and shown(best):
            return replace(found, missed=True,
                           message=f"{missed}: {' '.join(best.notations[len(start):])} (check them)"
                                   + ("; the turn may go on" if best.may_continue and not done else ""))
        if found.kind == "ambiguous" and all(not c.overridden and shown(c) for c in found.candidates):
            # The same board by turns in another order (two discs placed by one player): the
            # board cannot tell which, the players can.
            return replace(found, missed=True,
                           message=f"{missed}, and the board does not show in which order")
        return None
    return None


def _several(cands: tuple[Candidate, ...], total: int | None = None) -> Inference:
    """``ambiguous`` between candidates that fit equally well (``total`` of them, if more
    than given), the first :data:`MAX_CANDIDATES` listed."""
    shown = cands[:MAX_CANDIDATES]
    total = max(total or 0, len(cands))
    more = f" and {total - len(shown)} more" if total > len(shown) else ""
    return Inference("ambiguous", f"{total} turns fit what can be seen: "
                     + ", ".join(c.notation for c in shown) + more, shown)


def _unseen_turns(state: GameState, seen: _Seen, known: list[Any]) -> list[tuple[Any, frozenset[int]]]:
    """The turns the camera may not have seen at all (other than ``known``), with the points
    they change: those changing only points it does not see, or whose readings say next to
    nothing (as sure as :data:`UNSEEN_CONFIDENCE` at most, :meth:`_Seen.against`: a disc placed
    where the light hides it).  One per resulting board, none if more than :data:`MAX_CANDIDATES` boards."""
    fits = state.board.stack_fits
    unseen = [(turn, changes) for turn, changes in state.position().results
              if changes and turn not in known and all(
                  seen.stacks[i] is None or (seen.against(fits, i, s) < UNSEEN_CONFIDENCE and not seen.firm(i, s))
                  for i, s in changes.items())]
    return [(turn, frozenset(changes)) for turn, changes in _one_per_board(unseen)]


def _one_per_board(results: Iterable[tuple[Any, Changes]], most: int | None = MAX_CANDIDATES
                   ) -> list[tuple[Any, Changes]]:
    """The first of ``results`` (turn, changes) for each board they lead to, or none if they lead
    to more than ``most`` boards (by default too many to be told apart by a reply)."""
    boards: dict[frozenset[tuple[int, str]], tuple[Any, Changes]] = {}
    for turn, changes in results:
        boards.setdefault(frozenset(changes.items()), (turn, changes))
    return list(boards.values()) if most is None or len(boards) <= most else []


def _tentative(state: GameState, observation: Observation) -> list[tuple[Any, ...]]:
    """The turns an observation inferred ``unchanged`` may have been if some of its uncertain
    readings were right (:attr:`GameState.tentative`, each a sequence of turns after the
    pending turn, if any): the legal turns fitting every seen point, or else those changing
    exactly the points whose (unsure) readings changed (a disc just placed may be read unsure
    as two, but it is where the change is), or only some of them, each to what was read there
    (the turn read unsure, and a misreading elsewhere).  One turn per resulting board, and
    none where more than :data:`MAX_CANDIDATES` boards would do.  Then the last board's
    tentative turns, each followed by such a turn after it: the turn before was read unsure
    too (a dim or blurred camera, benchmarks/turns.py: Accasta, seed 3, turns 21-23)."""
    before = (state.pending,) if state.pending is not None else ()
    with _pushed(state.board, before):
        lines = [(turn,) for turn in _tentative_turns(state, observation)]
    for line in state.tentative:
        if len(line) < TENTATIVE_TURNS:
            with _pushed(state.board, before + line):
                lines += [line + (turn,) for turn in _tentative_turns(state, observation)]
    return lines[:MAX_CANDIDATES]


def _tentative_turns(state: GameState, observation: Observation) -> list[Any]:
    """:func:`_tentative` in the position on ``state.board``."""
    board = state.board
    fits = board.stack_fits
    sure = _Seen.of(board, observation, 0.0, state.misreadings(observation))  # every reading taken at its word
    changed = frozenset(_mismatches(fits, sure, board.stacks, range(len(board.stacks))))
    if not changed:
        return []
    pos = state.position()
    exact, _ = _match_turns(board, pos, sure, board.stacks)
    members = [m.index for m in exact]
    if not members:
        members = list(pos.groups.get(changed, []))
        for points, group in pos.groups.items():
            if points and points < changed:
                members += [n for n in group if all((read := sure.stacks[i]) is not None and fits(s, read)
                                                for i, s in pos.results[n][1].items())]
    return [turn for turn, _ in _one_per_board(pos.results[n] for n in members)]


def _partial(state: GameState, pos: _Position, seen: _Seen, prefix: tuple[Any, ...] = ()) -> Inference | None:
    """``partial`` if the observation is some turn carried out only in part (after the
    turns ``prefix``, already pushed on ``state.board``)."""
    board = state.board
    fits = board.stack_fits
    base = board.stacks
    need = frozenset(_mismatches(fits, seen, base, range(len(base))))
    # With the generic chains a turn's partial states only touch the points it changes;
    # a game's own chains may pass through others (a draughts piece's landing squares).
    own_chains = getattr(board, "partial_chains", None) is not None
    prefix_notes = tuple(state.board.notations(len(prefix)))
    found: list[Candidate] = []
    for points, members in pos.groups.items():
        if not own_chains and not need <= points:
            continue
        for n in members:
            turn, changes = pos.results[n]
            remaining = _chain_progress(board, turn, changes, seen, need)
            if remaining is not None:
                found.append(Candidate(prefix + (turn,), prefix_notes + (board.turn_notation(turn),), 1.0,
                                       remaining=tuple(remaining)))
    if not found:
        return None
    found.sort(key=lambda c: (len(c.remaining), _length(c.turns[-1]), c.notation))
    who = COLOUR_NAMES[board.turn]
    total = len(found)
    found = found[:MAX_CANDIDATES]
    if total == 1:
        msg = f"{who} is playing {found[0].notations[-1]}; still to do: {'; '.join(found[0].remaining)}"
    else:
        msg = (f"{who} has started one of {total} turns: " + ", ".join(c.notations[-1] for c in found)
               + (f" and {total - len(found)} more" if total > len(found) else ""))
    if prefix:
        msg = f"{' '.join(prefix_notes)} confirmed; {msg}"
    return Inference("partial", msg, tuple(found))


def _chain_progress(board: Board[Any], turn: Any, changes: Changes, seen: _Seen,
                    need: frozenset[int]) -> list[str] | None:
    """The steps still to do if the observation is ``turn`` partly carried out, else ``None``.

    ``need`` are the points where the observation differs from the board before the turn."""
    fits = board.stack_fits
    base = board.stacks
    remaining: list[str] = []
    started = False
    chains = partial_chains(board, turn, changes)
    touched = {i for chain in chains for step, _ in chain for i in step}
    if any(i not in touched for i in need):
        return None
    for chain in chains:
        state = {i: base[i] for step, _ in chain for i in step}
        best = None
        if all(seen.agrees(fits, i, s) for i, s in state.items()):
            best = 0
        for k, (step, _) in enumerate(chain, 1):
            state.update(step)
            if all(seen.agrees(fits, i, s) for i, s in state.items()):
                best = k
        if best is None:
            return None
        started = started or best > 0
        remaining.extend(desc for _, desc in chain[best:])
    if not started or not remaining:
        return None
    return remaining


# --- illegal: the nearest legal turns and why ----------------------------------------------------

def _illegal(state: GameState, pos: _Position, seen: _Seen) -> Inference:
    """``illegal``: the reason, the nearest legal turns and where the board differs from them."""
    board = state.board
    base = board.stacks
    differ = _mismatches(board.stack_fits, seen, base, range(len(base)))
    # Nearest legal turns: fewest points where the observation disagrees with their result.
    scored = []
    for points, members in pos.groups.items():
        outside = [i for i in differ if i not in points]
        for n in members:
            bad = _disagreements(board, seen, outside, pos.results[n][1])
            scored.append((len(bad), n, bad))
    scored.sort(key=lambda x: (x[0], _length(pos.results[x[1]][0]), x[1]))
    shown: list[tuple[int, int, list[int]]] = []
    boards: set[frozenset[tuple[int, str]]] = set()
    for entry in scored:  # one turn per resulting board: the shortest
        result = frozenset(pos.results[entry[1]][1].items())
        if result not in boards:
            boards.add(result)
            shown.append(entry)
            if len(shown) == 3:
                break
    cands = []
    for _, n, bad in shown:
        turn, changes = pos.results[n]
        cands.append(Candidate((turn,), (board.turn_notation(turn),),
                               _score(board.stack_fits, seen, ((i, changes.get(i, base[i])) for i in bad)), (),
                               _diffs(board, seen, _after(base, changes), sorted(bad))))
    differences = cands[0].differences if cands else _diffs(board, seen, base, differ)
    reason = _explain(board, pos, seen)
    if cands:
        reason += f"; nearest legal turn{'s' if len(cands) > 1 else ''}: " + ", ".join(
            f"{c.notation} ({len(c.differences)} point{' differs' if len(c.differences) == 1 else 's differ'})"
            for c in cands)
    elif not pos.results:
        reason += f"; {COLOUR_NAMES[board.turn]} has no legal turn"
    return Inference("illegal", reason, tuple(cands), differences)


def _explain(board: Board[Any], pos: _Position, seen: _Seen) -> str:
    """Why the observed board cannot follow a legal turn, in a player's words.

    In this order: a board no turn can make (a stack above the game's height limit,
    more pieces of a colour than the game has), claimed from the surely read points only (a
    doubtful reading is no proof of it); the other player moving out of turn; fewer opponent
    pieces taken off than every legal turn takes (a compulsory capture skipped or cut short);
    the game's own ``explain_illegal(seen)``."""
    seen_points = {n: s for n, s in zip(board.geometry.names, seen.stacks) if s is not None}
    sure_points = {n: s for n, s, low in zip(board.geometry.names, seen.stacks, seen.low) if s is not None and not low}
    for name, stack in sure_points.items():
        if len(stack) > board.max_height:
            return f"a stack may not be higher than {board.max_height} (seen {len(stack)} at {name})"
    material = board.material()
    for colour in ("w", "b"):
        on_board = sum(s.count(colour) for s in sure_points.values())
        if on_board > material[colour]:
            return f"there are more {COLOUR_NAMES[colour]} pieces on the board than the game has"
    flipped = board.copy()
    flipped.turn = other(board.turn)
    probe = GameState(flipped).position()
    exact, _ = _match_turns(flipped, probe, seen, flipped.stacks)
    if exact:
        turn = probe.results[exact[0].index][0]
        return (f"it is {COLOUR_NAMES[board.turn]}'s turn, but {COLOUR_NAMES[other(board.turn)]} "
                f"played {flipped.turn_notation(turn)}")
    reason = _skipped_capture(board, pos, seen)
    if reason:
        return reason
    hook = getattr(board, "explain_illegal", None)
    reason = hook(seen_points) if hook is not None else None
    return str(reason) if reason else f"no legal turn of {COLOUR_NAMES[board.turn]} leads to this board"


def _skipped_capture(board: Board[Any], pos: _Position, seen: _Seen) -> str | None:
    """"capture is compulsory: 28x19 was possible" when every legal turn takes opponent
    pieces off the board and the observation shows fewer taken than any of them.

    Counted on the fully read points only, so a hidden layer never causes the claim."""
    results = pos.results
    if not results:
        return None
    opponent = other(board.turn)
    taken = [sum(board.stacks[i].count(opponent) - s.count(opponent) for i, s in changes.items())
             for _, changes in results]
    least = min(taken)
    if least <= 0:
        return None
    read = [i for i, s in enumerate(seen.stacks) if s is not None and "?" not in s]
    seen_taken = sum(board.stacks[i].count(opponent) - (seen.stacks[i] or "").count(opponent) for i in read)
    if seen_taken >= least:
        return None
    most = max(taken)
    example = board.turn_notation(results[taken.index(most)][0])
    if seen_taken > 0 and least == most:
        return f"the capture must take the most pieces ({least}): {example} was possible"
    return f"capture is compulsory: {example} was possible"
