"""The live session: frames in, referee events out, independent of any screen.

One loop serves a camera, a video, a folder of frames and a log of observations::

    session = Session(new_game("accasta"), reader, journal=journal)
    for frame in source:
        for event in session.feed(frame):
            reporter.show(event)

:meth:`Session.feed` reads a frame only when the picture is still and no hand is in
view (:class:`~tacticblue.stillness.StillnessDetector` plus the reader's hand check),
and takes a new board only after :attr:`Session.confirm_reads` identical reads in a
row, so a half-made move is never taken for a turn.  A settled board goes to the
referee, :meth:`Session.settled`, which infers the turn with
:class:`rules.infer.GameState` and answers with :class:`Event` s:

``turn``       a turn is final (journaled, flushed and synced to disk *before* it is announced;
               from a camera, one that overrules an unsure reading once a second reading agrees);
``partial``    a turn in progress (an Accasta turn that may go on, a capture half carried out);
``ambiguous``  several turns fit: the candidates, confirm one with :meth:`confirm`;
``illegal``    what was wrong and what to put back (nothing is recorded); if the board is
               right and the camera misreads it, confirming one of the nearest legal turns
               records it, and the readings it does not fit are taken as misreadings from then on
               (from a camera, told once a second reading agrees: :data:`REREAD_S`);
``takeback``   the board went back to an earlier position (at most :data:`TAKEBACK_PLIES`
               turns back; further back, the players are asked to take the turns back with
               :meth:`undo`), or :meth:`undo` was asked for;
``end``        the game is over, with its result;
``info``       everything else worth telling: the board re-found, the camera gone, a resume.

Times ``t`` are seconds of the source (video time for recordings).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from rules import Board
from rules.base import COLOUR_NAMES
from rules.infer import GameState, Inference, Observation, infer, played_changes
from rules.record import turn_number
from tacticblue.journal import Journal
from tacticblue.sources import Frame
from tacticblue.stillness import StillnessDetector

EventKind = Literal["turn", "illegal", "partial", "ambiguous", "takeback", "end", "info"]
"""What an :class:`Event` tells: a turn recorded, an illegal board, a turn under way, boards to
choose between, a take-back, the game's end, or a note."""
LOST_NOTE_S = 3.0
"""A board that was in view and is lost (the tracker no longer sees enough of its printed
lines) is told as not in view only once it has stayed lost this long: an arm over much of
the board loses it for a moment, and the companion's demo film told the players four times
that the board was not in view while a hand rested over it (2.5 s each)."""
LOST_BOARD_S = 10.0
"""A board not found for this long gets the players a way out: calibrate it from a photo."""
STEADY_HAND_S = 5.0
"""A hand seen this long over a picture that stays still is told about: the board is not read
while it is there, and a real hand seldom stays so still (warm light can make white discs and
a cream board look skin-coloured to the hand check).  So is a still picture that is not read
for another reason (too dark, too blurred), with the reason."""
REREAD_S = 1.0
"""A still board that left candidates to confirm (ambiguous, or illegal with nearest legal
turns) is read again this long after, up to :data:`REREADS` times while it stays still: the
first frames after a hand leaves carry the video encoder's traces of the motion, and a later
frame of the same board often reads right what was unsure there (the players may still
confirm a candidate meanwhile).  On the steep 640x360 sample film an ambiguous board is so
settled a second later instead of with the reply.  A doubtful board of the first reading in
a stillness (illegal, or a turn only if an unsure reading is overruled) is likewise not
taken but read again, and the re-read refereed instead: made surer where the two readings
agree if only that makes a turn (a Dame 100 film read the turn 10-14 surely but an unrelated
piece unsure and empty, and the re-read that piece surely but the turn's two points unsure,
no turn on their own).  On rendered films (``benchmarks/films.py``) a misread disc made a
board illegal for a second in a quarter of them, and the players were told to put back
pieces that stood right; and an Attraktion board read between the moves of
a turn, a hand coming back at the picture's edge, was taken for another turn by overruling
the unsure point under the hand.  A real illegal move is told a second later.  A board read
the same once the picture is still again after moving (a camera shaken, a hand passing over)
is its own second reading: a shaky camera's glossy black disc read white, unsure, was held
back, dropped when the picture moved, and never taken (benchmarks/films.py, seed 1)."""
REREADS = 3


TAKEBACK_PLIES = 2
"""The most turns a board back at an earlier position takes back by itself: a player's own
last turn, or that and the reply.  Further back, the game is kept as it is and the players are
asked to take the turns back one by one (:meth:`Session.undo`): a board set up again at the
start for the next game, or a session resumed with another game's film, had every turn of the
game taken back (tried: a 30-turn Accasta game, resumed and shown its opening, recorded 30
take-backs and a new game)."""


@dataclass(frozen=True)
class Event:
    """One thing to tell the players.  ``turn`` is the turn's notation where there is one."""

    t: float
    event: EventKind
    message: str
    turn: str | None = None
    ply: int | None = None
    """The number of turns played after this event (for a turn: up to and including it)."""
    number: int | None = None
    """A turn's number as the game's record prints it (White's and Black's turns share one)."""
    data: dict[str, Any] = field(default_factory=dict)
    """Extras for screens: ``candidates``, ``put_back`` and ``unsure`` (point -> the stack that
    should be there, read surely otherwise or unsure), ``targets``, ``result``."""

    def to_json(self) -> dict[str, Any]:
        return {"t": round(self.t, 3), "event": self.event, "turn": self.turn, "message": self.message,
                "ply": self.ply, **({"number": self.number} if self.number is not None else {}), **self.data}


@dataclass(frozen=True)
class Reading:
    """What a reader saw in one frame: the stacks, or ``None`` with a hand in view or no board."""

    observation: Observation | None
    hand: bool = False
    reason: str | None = None
    """Why the frame was not read, when it was not and the players can help (too dark, blurred)."""
    status: str = "steady"
    """The board pose: ``steady``, ``moved`` (re-found after a bump) or ``lost``."""
    overlay: Any = None
    """Whatever the window may draw for this reading (the board pose), or ``None``."""
    note: str | None = None
    """Something the players should know about how the board is read (told once)."""
    area: Any = None
    """Where the game shows in the frame (pixels, N x 2, a polygon's corners), or ``None``: only
    there does a piece moving with no hand in view count (:meth:`StillnessDetector.watch`)."""


class BoardReader(Protocol):
    """Reads one frame: board pose, hand check and every point's stack."""

    def read(self, frame: Frame) -> Reading: ...


class Session:
    """A game refereed from settled observations (see the module docstring)."""

    def __init__(self, board: Board[Any], reader: BoardReader | None = None, *, journal: Journal | None = None,
                 stillness: StillnessDetector | None = None, confirm_reads: int = 1, teach: bool = False) -> None:
        self.state = GameState(board)
        self.reader = reader
        self.journal = journal
        self.stillness = stillness or StillnessDetector(settle_s=0.3)
        self.confirm_reads = confirm_reads
        """Identical reads needed to take a board.  One is enough by default: the picture has
        been still for the settle time and stays so while it is read, and a second read of the
        same picture gives the same board; more help only a reader that is not deterministic."""
        self.teach = teach
        self.notations: list[str] = board.notations()
        """The turns played, in the game's notation."""
        self.last: Event | None = None
        """The last event other than ``info`` (what the screen shows as the current message)."""
        self.reading: Reading | None = None
        """The last reading of a frame (for the window's drawing)."""
        self.observation: Observation | None = None
        """The last settled observation."""
        self._reads: list[Observation] = []
        self._taken: list[float] = []
        """When each board taken while the picture has been still was read."""
        self._settled_key: Any = None
        self._choices: Inference | None = None
        """The last board's candidates the players may confirm (ambiguous or illegal), if any."""
        self._held: Observation | None = None
        """A doubtful board not yet refereed: read so once, the picture still since (see :data:`REREAD_S`)."""
        self._interrupted: Observation | None = None
        """A doubtful board held until the picture moved: read the same once it is still again,
        that reading is its second (:meth:`settled`)."""
        self._pending_shown: Any = None
        self._ended = board.outcome() is not None
        self._unread_since: float | None = None
        """When the still picture was first not read (a hand over it, too dark, blurred; None: it
        is read, or the picture moved)."""
        self._unread_told = False
        self._found = False
        """Whether the board has been in view since the session began."""
        self._lost_since: float | None = None
        """Since when no board has been found (None: it is in view)."""
        self._lost_told: set[str] = set()
        """What the players have been told since then: ``"view"``, ``"calibrate"``."""

    # --- frames ------------------------------------------------------------------------------

    @property
    def board(self) -> Board[Any]:
        return self.state.board

    def feed(self, frame: Frame) -> list[Event]:
        """One camera frame: read it if the board has settled, referee what changed.

        Frames are read only while the picture is still, and only until one board has
        been read :attr:`confirm_reads` times in a row: then nothing is read until the
        picture moves again (or, if that board was doubtful or left candidates to confirm,
        :data:`REREAD_S` later: see :data:`REREADS`), so a game of long thinking costs one
        frame difference per frame."""
        t = frame.t
        if not self.stillness.update(frame.image, t):
            self._unread_since = None
            self._reads.clear()
            self._taken.clear()
            if self._held is not None:  # the doubtful board is gone, unless the same board settles again
                self._interrupted, self._held = self._held, None
            return []
        doubt = self._choices is not None or self._held is not None
        if self._taken and (not doubt or len(self._taken) > REREADS or t < self._taken[-1] + REREAD_S):
            return []
        assert self.reader is not None, "a session fed with frames needs a reader"
        reading = self.reader.read(frame)
        self.reading = reading
        if reading.area is not None:
            self.stillness.watch(reading.area, (frame.image.shape[1], frame.image.shape[0]))
        events = [self._info(t, reading.note)] if reading.note else []
        if reading.status == "lost":
            events += self._lost(t)
        else:
            if reading.status == "moved":
                events.append(self._info(t, "the board was moved: found it again, the game goes on"))
            if "view" in self._lost_told:
                events.append(self._info(t, "the board is in view again"))
            self._found, self._lost_since, self._lost_told = True, None, set()
        if reading.hand or reading.observation is None:
            self._reads.clear()
            return events + self._still_unread(t, reading)
        self._unread_since, self._unread_told = None, False
        if self._reads and self._reads[-1].points != reading.observation.points:
            self._reads.clear()  # still changing (a misread, a piece settling): start over
        self._reads.append(reading.observation)
        if len(self._reads) < self.confirm_reads:
            return events
        self._reads.clear()
        first = not self._taken
        self._taken.append(t)
        return events + self.settled(reading.observation, t, hold=first)

    def _lost(self, t: float) -> list[Event]:
        """What to tell the players of a frame in which no board was found: that it is not in
        view, at once if it has not been yet, else once it has stayed lost :data:`LOST_NOTE_S`;
        how to calibrate it once it has stayed lost :data:`LOST_BOARD_S`; each once."""
        if self._lost_since is None:
            self._lost_since = t
        lost, told = t - self._lost_since, self._lost_told
        events = []
        if "view" not in told and (not self._found or lost >= LOST_NOTE_S):
            told.add("view")
            events.append(self._info(t, "the board is not in view: the game is kept, point the camera at it"))
        if "calibrate" not in told and lost >= LOST_BOARD_S:
            told.add("calibrate")
            events.append(self._info(t, f"no board found for {LOST_BOARD_S:.0f} s: if it is in view, calibrate it "
                                        f"once from a photo ('tacticblue calibrate board PHOTO --game "
                                        f"{self.board.name}', with --corners if it is not found there either) and "
                                        "start again with --calibration"))
        return events

    # --- the referee --------------------------------------------------------------------------

    def settled(self, observation: Observation, t: float, hold: bool = False) -> list[Event]:
        """Referee one settled board: infer, apply, journal, and say what happened.

        With ``hold``, a doubtful board (illegal with nearest legal turns, or a turn that
        overrules an unsure reading) is held back, and the next board settled is refereed in its
        place (see :data:`REREAD_S`): as read then, or, if that makes no turn, each point the two
        readings agree on as sure as the surer of them, if that makes one."""
        key = tuple(sorted(observation.points.items()))
        interrupted, self._interrupted = self._interrupted, None
        if interrupted is not None and interrupted.points == observation.points:
            # Read the same after the picture moved (a camera shaken, a hand passing over):
            # this is the doubtful board's second reading.
            self._held, hold = interrupted, False
        if key == self._settled_key and self._held is None:
            return []
        self._settled_key = key
        held, self._held = self._held, None
        self.observation = observation
        if self._ended:
            return []
        result = infer(self.state, observation)
        if held is not None and not hold and result.kind != "turn":
            # The doubtful board read again, and no turn as read now: where the two readings
            # agree, as sure as the surer (a turn seen surely once and its unsure point surely
            # the next time; read once unsure at the turn's points, that is no turn).
            fused = held.fused(observation)
            again = infer(self.state, fused)
            if again.kind == "turn":
                self.observation = observation = fused
                result = again
        if hold and _doubtful(result):
            self._held = observation
            return []
        if result.kind == "restored" and self.board.ply - (result.restored_ply or 0) > TAKEBACK_PLIES:
            return [self._far_back(result.restored_ply or 0, t)]
        before_ply = self.board.ply
        return self._apply(self.state.apply(result, observation), before_ply, t)

    def _release(self, t: float) -> list[Event]:
        """The board held back, refereed now (the source ended before it was read again)."""
        held, self._held = self._held, None
        if held is None:
            return []
        before_ply = self.board.ply
        return self._apply(self.state.update(held), before_ply, t)

    def _apply(self, result: Inference, before_ply: int, t: float) -> list[Event]:
        events: list[Event] = []
        self._held = None
        kind = result.kind
        if kind == "restored":
            events += self._record_takeback(before_ply, t, result.message)
        else:
            events += self._record_new_turns(t)
        if kind == "turn" and result.missed:
            events.append(self._info(t, result.message + "; 'u' takes back the last"))
        if kind in ("turn", "unchanged") and self.state.pending is not None:
            if self.state.pending != self._pending_shown:
                self._pending_shown = self.state.pending
                note = self.board.turn_notation(self.state.pending)
                events.append(self._event(t, "partial", f"{self._mover()} is playing {note}; the turn may go on "
                                          "(make the next move, or say 'turn done')", note))
        elif kind == "partial":
            data: dict[str, Any] = {"candidates": [c.notation for c in result.candidates]}
            if self.teach:
                data["targets"] = _targets(self.board, result)
            events.append(self._event(t, "partial", result.message, result.notation, data))
        elif kind == "ambiguous":
            cands = [c.notation for c in result.candidates]
            events.append(self._event(t, "ambiguous", result.message + " (confirm one: "
                                      + ", ".join(f"{n + 1}={c}" for n, c in enumerate(cands)) + ")",
                                      None, {"candidates": cands}))
        elif kind == "illegal":
            events.append(self._illegal(result, t))
        self._choices = result if kind in ("ambiguous", "illegal") and result.candidates else None
        return events + self._check_end(t)

    def _illegal(self, result: Inference, t: float) -> Event:
        expected = self.state.visible_now()
        names = self.board.geometry.names
        seen = self.observation.points if self.observation else {}
        known = self.state.misreadings(self.observation) if self.observation else {}
        differ = {names[i]: s for i, s in enumerate(expected)
                  if names[i] in seen and names[i] not in known and not self.board.stack_fits(s, seen[names[i]])}
        # Only readings sure of what they see ask for a piece to be put back: an unsure one is
        # as likely the camera's misreading of a piece that stands right (a glossy black disc
        # seen from above read white), and the players are asked to look at it.
        sure = self.observation.sure_against if self.observation else None
        put_back = {p: s for p, s in differ.items() if sure is None or sure(p, s, self.state.low_confidence)}
        unsure = {p: s for p, s in differ.items() if p not in put_back}
        message = result.message
        if put_back:
            message += ". Put back: " + ", ".join(f"{p} {s or 'empty'}" for p, s in put_back.items())
        if unsure:
            message += ". Check (read unsure): " + ", ".join(f"{p} {s or 'empty'}" for p, s in unsure.items())
        nearest = [c.notation for c in result.candidates]
        if nearest:
            message += (" (if the camera misreads the board, confirm the turn played: "
                        + ", ".join(f"{n + 1}={c}" for n, c in enumerate(nearest)) + ")")
        data: dict[str, Any] = {"put_back": put_back, "unsure": unsure, "nearest": nearest}
        return self._event(t, "illegal", message, None, data)

    def _record_new_turns(self, t: float) -> list[Event]:
        """Journal and announce every turn the game state played since the last call."""
        events = []
        stack = self.board.move_stack
        replay = self.board.copy()
        for _ in range(len(stack) - len(self.notations)):
            replay.pop()
        for turn in stack[len(self.notations):]:
            note = replay.turn_notation(turn)
            mover = COLOUR_NAMES[replay.turn]
            passed = not played_changes(replay, turn)
            replay.push(turn)
            if self.journal is not None:
                self.journal.turn(replay.ply, note, t)  # on disk before anyone hears of it
            self.notations.append(note)
            message = f"{mover} played {note}"
            if passed:
                message = f"{mover} passed"
            events.append(self._event(t, "turn", message, note, ply=replay.ply,
                                      number=turn_number(replay.ply - 1, replay.first_player)))
        if events:
            self._pending_shown = None
        return events

    def _far_back(self, ply: int, t: float) -> Event:
        """What to tell the players of a board back at the position after ``ply``, more than
        :data:`TAKEBACK_PLIES` turns back: nothing is taken back by itself."""
        back = self.board.ply - ply
        where = "the start position" if ply == 0 else f"the position after the first {ply} turns"
        return self._info(t, f"the board shows {where}, {back} turns back: the game is kept as it was. If the players "
                             f"took those turns back, press 'u' {back} times; for a new game, end this session and "
                             "start another")

    def _record_takeback(self, before_ply: int, t: float, why: str) -> list[Event]:
        undone = self.notations[self.board.ply:]
        for ply in range(before_ply, self.board.ply, -1):
            if self.journal is not None:
                self.journal.undo(ply, t)
        del self.notations[self.board.ply:]
        self._pending_shown = None
        if not undone:
            return [self._event(t, "takeback", "the unfinished turn was taken back", None)]
        return [self._event(t, "takeback", f"taken back: {' '.join(undone)} ({why})", undone[-1],
                            {"undone": undone})]

    def _check_end(self, t: float) -> list[Event]:
        if self._ended:
            return []
        outcome = self.board.outcome()
        if outcome is None:
            return []
        self._ended = True
        result = outcome.to_json()
        if self.journal is not None:
            self.journal.end(result)
        return [self._event(t, "end", f"game over: {outcome.reason}", None, {"result": result})]

    # --- the players' controls --------------------------------------------------------------------

    def turn_done(self, t: float) -> list[Event]:
        """The players say the turn in progress is finished."""
        before = self.board.ply
        if self.state.pending is None and self.observation is not None and not self._ended:
            return self._apply(self.state.update(self.observation, done=True), before, t)
        self.state.turn_done()
        events = self._record_new_turns(t)
        return events + self._check_end(t) if events else [self._info(t, "no turn in progress")]

    def undo(self, t: float) -> list[Event]:
        """Take back the last turn (the players put the board back as it was)."""
        if self.state.pending is not None:
            self.state.pending = None
            self._pending_shown = None
            return [self._event(t, "takeback", "the unfinished turn was taken back: put the pieces back")]
        if not self.board.move_stack:
            return [self._info(t, "nothing to take back")]
        before = self.board.ply
        self.state.push([])  # clears the cached history
        self.board.pop()
        self._ended = self.board.outcome() is not None
        self._settled_key = None
        return self._record_takeback(before, t, "undo")

    def pass_turn(self, t: float) -> list[Event]:
        """The player to move passes (where the rules allow it); a turn in progress is finished first."""
        self.state.turn_done()
        events = self._record_new_turns(t) + self._check_end(t)
        passes = [turn for turn in self.board.legal_turns() if not played_changes(self.board, turn)]
        if not passes or self._ended:
            return events + [self._info(t, f"{self._mover()} may not pass here")]
        self.state.push([passes[0]])
        return events + self._record_new_turns(t) + self._check_end(t)

    def confirm(self, choice: int, t: float) -> list[Event]:
        """Choose candidate ``choice`` (1-based) of the last ambiguous board, or of the nearest
        legal turns of the last illegal one: the board seen is then right for the record, and
        its readings that do not fit the turn are taken as the camera's misreadings."""
        choices = self._choices if self._held is None else None  # not those of a board not yet told
        if choices is None or not 1 <= choice <= len(choices.candidates):
            return [self._info(t, "no such candidate to confirm")]
        self.state.pending = None  # candidates start from the confirmed board (a pending turn is their prefix)
        self.state.push(choices.candidates[choice - 1].turns)
        taken = self.state.accept(self.observation) if self.observation is not None else {}
        self._choices = None
        events = self._record_new_turns(t) + self._check_end(t)
        if self.journal is not None:
            for point, (stack, read) in taken.items():
                self.journal.misread(self.board.ply, point, stack, read, t)
        if taken:
            events.append(self._info(t, "taken as the camera's misreading while it stays so: " + ", ".join(
                f"{p} read {read or 'empty'} (it is {stack or 'empty'})" for p, (stack, read) in taken.items())))
        return events

    def remember(self, misread: dict[str, tuple[str, str]]) -> None:
        """Readings the players confirmed wrong before (a resumed journal's, point -> (the
        record's stack, the stack read)): misreadings again where the record still has that stack."""
        self.state.accept(Observation({p: read for p, (stack, read) in misread.items() if self.board[p] == stack}))

    def command(self, text: str, t: float) -> list[Event]:
        """A keyboard command: ``d``/``done``, ``u``/``undo``, ``p``/``pass``, a digit to confirm."""
        word = text.strip().lower()
        if word in ("d", "done", "turn done", " "):
            return self.turn_done(t)
        if word in ("u", "undo"):
            return self.undo(t)
        if word in ("p", "pass"):
            return self.pass_turn(t)
        if word.isdigit():
            return self.confirm(int(word), t)
        return [self._info(t, f"unknown command {text.strip()!r}: d = turn done, u = undo, p = pass, 1-9 = confirm")]

    def finish(self, t: float, why: str, confirm_pending: bool) -> list[Event]:
        """The source ended: keep the game, confirm a turn left pending if asked, and say so.

        The last board may have shown a turn only unsure (its changed points read under
        :data:`rules.infer.LOW_CONFIDENCE`), kept tentative until a reply confirms it
        (:attr:`rules.infer.GameState.tentative`).  Where one line of turns explains it, a
        recording that ended (``confirm_pending``) records it, as its end confirms a pending
        turn, and tells the players to check it; otherwise they are told what it may have been.
        On benchmarks/films.py (seed 1) the last turn of a Dame 100 film, 10-14, was read at
        0.23 and 0.53 on its two points seen far off at 640x360, and went unrecorded."""
        events = self._release(t)
        lines = self.state.tentative
        line = lines[0] if len(lines) == 1 and not self._ended else ()
        unsure = []
        if line:
            trial = self.board.copy()
            for turn in ((self.state.pending,) if self.state.pending is not None else ()) + line:
                trial.push(turn)
            unsure = trial.notations(len(line))
        if confirm_pending and (self.state.pending is not None or line):
            self.state.turn_done()
            if line:
                self.state.push(line)
            events += self._record_new_turns(t) + self._check_end(t)
        if unsure:
            told = "recorded as the recording ended: check it" if confirm_pending else "not recorded"
            events.append(self._info(t, f"the last board showed {' '.join(unsure)} only unsure; {told}"))
        state = "the game is over" if self._ended else f"the game is kept after {len(self.notations)} turns"
        return events + [self._info(t, f"{why}: {state}")]

    # --- helpers ---------------------------------------------------------------------------------

    def _mover(self) -> str:
        return COLOUR_NAMES[self.board.turn]

    def _event(self, t: float, kind: EventKind, message: str, turn: str | None = None,
               data: dict[str, Any] | None = None, *, ply: int | None = None, number: int | None = None) -> Event:
        event = Event(t, kind, message, turn, self.board.ply if ply is None else ply, number, data or {})
        self.last = event
        return event

    def _still_unread(self, t: float, reading: Reading) -> list[Event]:
        """A still picture not read, with a hand over it or for a ``reading.reason`` the players
        can help: told once it has stayed so :data:`STEADY_HAND_S` (once until a frame is read)."""
        if not (reading.hand or reading.reason):
            return []
        if self._unread_since is None:
            self._unread_since = t
        if self._unread_told or t - self._unread_since < STEADY_HAND_S:
            return []
        self._unread_told = True
        since = t - self._unread_since
        if reading.hand:
            return [self._info(t, f"a hand has been over the still board for {since:.0f} s: the board is read once "
                                  "it has gone (if there is none, the light makes the pieces or the board look "
                                  "skin-coloured: a whiter light helps)")]
        return [self._info(t, f"the board has not been readable for {since:.0f} s: {reading.reason}")]

    def _info(self, t: float, message: str) -> Event:
        return Event(t, "info", message, None, self.board.ply)


def _doubtful(result: Inference) -> bool:
    """A board to read again before it is refereed: illegal, with nearest legal turns to
    confirm, a turn only if an unsure reading is overruled, or turns the camera did not see."""
    if result.kind == "illegal":
        return bool(result.candidates)
    return result.kind == "turn" and result.best is not None and (bool(result.best.overridden) or result.missed)


def _targets(board: Board[Any], result: Inference) -> list[str]:
    """Teaching mode: where the pieces lifted in a partial turn may go (the points the
    candidate turns add pieces to)."""
    out: set[str] = set()
    for cand in result.candidates:
        board.push(cand.turns[-1])
        try:
            after = dict(zip(board.geometry.names, board.stacks))
        finally:
            board.pop()
        for name, stack in after.items():
            if len(stack) > len(board[name]):
                out.add(name)
    return sorted(out)
