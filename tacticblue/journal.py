"""The game journal: every accepted turn on disk at once, so a crash loses nothing.

A journal is a UTF-8 text file of JSON lines.  The first line is a header
``{"type": "header", "format": "tacticblue-journal", "version": 1, "game": G, ...}`` (with
``"discs": [DIAMETER, THICKNESS]`` in mm where the players gave their discs' size);
then one line per event: ``{"type": "turn", "ply": n, "turn": NOTATION, "t": seconds}``,
``{"type": "undo", "ply": n, "t": seconds}`` for a take-back of the last turn,
``{"type": "misread", "ply": n, "point": P, "stack": S, "read": R, "t": seconds}`` for a
reading the players confirmed wrong (the record has ``S`` at ``P``, the camera reads ``R``),
``{"type": "discs", "discs": [DIAMETER, THICKNESS]}`` where a resumed game is read with
another size of discs than before, and ``{"type": "end", "result": {...}}``.  Each line is
written and ``fsync``-ed before the turn is announced.  Where the disk refuses it (full, or
its stick pulled), what it took of it is cut back, the lines it refused are held and written
before the next one, and the referee goes on (:meth:`Journal.news` tells the players).

A journal open for writing is locked (``flock``), so that a second session resuming it while
the first still runs (another terminal, a window left open) is refused rather than appending
turns of its own among the first's, which would leave a journal no session can resume.

Reading checks every line and replays the turns through the rules, so a journal that
does not belong to the game or holds an illegal turn is refused with the line number.
The one tolerated defect is a last line cut off without its newline (a crash or power
cut during the write): it is ignored, and :meth:`Journal.resume` moves it aside into
``JOURNAL.torn`` before appending, never rewriting the good lines.
"""

from __future__ import annotations

import datetime as _dt
import errno
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from rules import Board, IllegalTurn, new_game
from rules.record import Record

FORMAT = "tacticblue-journal"
VERSION = 1


class JournalError(ValueError):
    """A journal that cannot be used; the message says which line and why."""


@dataclass
class JournalContents:
    """What a journal holds: the game, the turns still standing (after undos), and more."""

    game: str
    turns: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None
    misread: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Readings the players confirmed wrong, still standing: point -> (the record's stack, the
    stack read); one whose point a later turn changed is gone."""
    torn_tail: str | None = None
    """A last line cut off by a crash, ignored; ``None`` when the file ended cleanly."""
    discs: tuple[float, float] | None = None
    """The discs' diameter and thickness (mm) the players last gave (``--discs``), if ever:
    a resumed game is read with them."""


def read_journal(path: Path) -> JournalContents:
    """Read and check a journal; :class:`JournalError` names what is wrong."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise JournalError(f"no journal at {path}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise JournalError(f"{path} is not a tacticblue journal (not UTF-8 text)") from None
    lines = text.split("\n")
    torn = None
    if lines and lines[-1] == "":
        lines.pop()
    elif lines:
        torn = lines.pop()  # no newline at the end: the last write was cut off
    if not lines:
        raise JournalError(f"{path} is empty: not a tacticblue journal")
    entries = []
    for n, line in enumerate(lines, 1):
        try:
            entry = json.loads(line)
            if not isinstance(entry, dict) or "type" not in entry:
                raise ValueError("not an object with a type")
        except ValueError:
            if n == 1:
                raise JournalError(f"{path} is not a tacticblue journal (no header on line 1)") from None
            raise JournalError(f"{path}, line {n}: corrupt entry {line[:60]!r}") from None
        entries.append(entry)
    head = entries[0]
    if head.get("type") != "header" or head.get("format") != FORMAT:
        raise JournalError(f"{path} is not a tacticblue journal (no header on line 1)")
    if head.get("version") != VERSION:
        raise JournalError(f"{path}: journal version {head.get('version')!r} is not supported (this is {VERSION})")
    contents = JournalContents(game=str(head.get("game")), torn_tail=torn)
    try:
        board = new_game(contents.game)
    except ValueError as e:
        raise JournalError(f"{path}: {e}") from None
    contents.discs = _discs(head, path, 1)
    for n, entry in enumerate(entries[1:], 2):
        kind = entry["type"]
        if kind == "discs":
            contents.discs = _discs(entry, path, n)
        elif kind == "turn":
            try:
                board.push(board.parse_turn(str(entry.get("turn"))))
            except IllegalTurn as e:
                raise JournalError(f"{path}, line {n}: turn {entry.get('turn')!r} is not legal here: {e}") from None
            contents.turns.append(str(entry["turn"]))
            contents.misread = _standing(contents.misread, board)
        elif kind == "misread":
            point, stack, read = entry.get("point"), entry.get("stack"), entry.get("read")
            if (not isinstance(point, str) or point not in board.geometry or not isinstance(read, str)
                    or set(read) - set("wb?") or board[point] != stack):
                raise JournalError(f"{path}, line {n}: misreading {point!r} does not fit the game here")
            contents.misread[point] = (stack, read)
        elif kind == "undo":
            if not contents.turns:
                raise JournalError(f"{path}, line {n}: take-back with no turn to take back")
            board.pop()
            contents.turns.pop()
            contents.misread = _standing(contents.misread, board)
        elif kind == "end":
            contents.result = entry.get("result")
        else:
            raise JournalError(f"{path}, line {n}: unknown entry type {kind!r}")
    return contents


def _discs(entry: dict[str, Any], path: Path, n: int) -> tuple[float, float] | None:
    """The discs' size an entry (the header, or a ``discs`` entry on line ``n``) gives, if any."""
    if "discs" not in entry and entry["type"] == "header":
        return None
    size = entry.get("discs")
    if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, (int, float)) and 0 < v < 100
                                                              for v in size)):
        raise JournalError(f"{path}, line {n}: the discs' size {size!r} is not a diameter and thickness in mm")
    return float(size[0]), float(size[1])


def _standing(misread: dict[str, tuple[str, str]], board: Board[Any]) -> dict[str, tuple[str, str]]:
    """The misreadings whose points still hold the stack they were confirmed for."""
    return {p: m for p, m in misread.items() if board[p] == m[0]}


class Journal:
    """An open journal that appends events durably.  Use :meth:`create` or :meth:`resume`."""

    def __init__(self, path: Path, handle: IO[str], game: str) -> None:
        self.path = path
        self.game = game
        self._handle = handle
        self._held: list[str] = []
        """Lines the disk refused (full, or gone), written before the next one."""
        self.problem: str | None = None
        """Why the last write failed ("PATH: cannot write (reason)"), or None."""
        self._told = False

    @classmethod
    def create(cls, path: Path, game: str, **info: Any) -> "Journal":
        """Start a new journal; refuses to overwrite an existing file."""
        new_game(game)  # validates the name
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle = open(path, "x", encoding="utf-8")
        except FileExistsError as e:
            if e.filename != str(path):  # a file where a folder of the path should be
                raise JournalError(f"{path}: cannot create the journal ({e.filename} is not a folder)") from None
            raise JournalError(f"{path} exists already: give another file, or --resume it") from None
        except OSError as e:
            raise JournalError(f"{path}: cannot create the journal ({e.strerror})") from None
        _lock(handle, path)
        journal = cls(path, handle, game)
        journal._write({"type": "header", "format": FORMAT, "version": VERSION, "game": game,
                        "started": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), **info})
        return journal

    @classmethod
    def resume(cls, path: Path) -> tuple["Journal", JournalContents]:
        """Reopen a journal to continue its game, returning what it already holds; refused
        while another session writes it."""
        try:  # to append, never creating it
            handle = os.fdopen(os.open(path, os.O_WRONLY | os.O_APPEND), "a", encoding="utf-8")
        except FileNotFoundError:
            raise JournalError(f"no journal at {path}") from None
        except OSError as e:
            raise JournalError(f"{path}: cannot open the journal to write ({e.strerror})") from None
        try:
            _lock(handle, path)
            contents = read_journal(path)  # as it is now that no session writes it
            if contents.torn_tail is not None:
                Path(str(path) + ".torn").write_text(contents.torn_tail, encoding="utf-8")
                os.ftruncate(handle.fileno(), len(path.read_bytes()) - len(contents.torn_tail.encode("utf-8")))
        except BaseException:
            handle.close()
            raise
        return cls(path, handle, contents.game), contents

    def _write(self, entry: dict[str, Any]) -> None:
        """Append ``entry`` durably, after the lines held before it; where the disk refuses
        them (full, or its stick pulled), they are held for the next write and :attr:`problem`
        says why: the referee goes on (:meth:`news`)."""
        self._held.append(json.dumps(entry, ensure_ascii=False) + "\n")
        fd = self._handle.fileno()
        size: int | None = None
        try:
            size = os.fstat(fd).st_size
            data = "".join(self._held).encode("utf-8")
            while data:
                data = data[os.write(fd, data):]
            os.fsync(fd)
        except OSError as e:
            if size is not None:  # a write refused part-way is cut back, so the file stays whole lines
                try:
                    os.ftruncate(fd, size)
                    os.lseek(fd, size, os.SEEK_SET)
                except OSError:
                    pass
            self.problem = f"{self.path}: cannot write ({e.strerror})"
            return
        self._held.clear()
        self.problem = None

    def news(self) -> str | None:
        """What to tell the players when writing the journal failed or works again (once each)."""
        if self.problem is not None and not self._told:
            self._told = True
            return (f"{self.problem}: the game goes on, and the turns not yet in the journal are written when they "
                    "can be, tried again after every turn (make room on its disk)")
        if self.problem is None and self._told:
            self._told = False
            return f"the journal {self.path} is written again, with every turn"
        return None

    @property
    def lacking(self) -> int:
        """How many entries (turns, undos, ...) the journal on disk lacks."""
        return len(self._held)

    def turn(self, ply: int, notation: str, t: float | None = None) -> None:
        self._write({"type": "turn", "ply": ply, "turn": notation, **({"t": round(t, 3)} if t is not None else {})})

    def undo(self, ply: int, t: float | None = None) -> None:
        self._write({"type": "undo", "ply": ply, **({"t": round(t, 3)} if t is not None else {})})

    def misread(self, ply: int, point: str, stack: str, read: str, t: float | None = None) -> None:
        self._write({"type": "misread", "ply": ply, "point": point, "stack": stack, "read": read,
                     **({"t": round(t, 3)} if t is not None else {})})

    def discs(self, size: tuple[float, float]) -> None:
        """The discs' diameter and thickness (mm) the game is read with from now on."""
        self._write({"type": "discs", "discs": list(size)})

    def end(self, result: dict[str, Any] | None) -> None:
        self._write({"type": "end", "result": result})

    def close(self) -> None:
        self._handle.close()


def _lock(handle: IO[str], path: Path) -> None:
    """Lock the journal open as ``handle`` for this session (released when it is closed);
    :class:`JournalError` where another session holds it.  A file system without locks (some
    network shares) is written unlocked."""
    try:
        import fcntl
    except ImportError:  # no flock on this system
        return
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            handle.close()
            raise JournalError(f"{path} is being written by another tacticblue session: end that one first "
                               "(or give another journal)") from None


def replay_journal(contents: JournalContents) -> Board[Any]:
    """The board after a journal's turns (already checked by :func:`read_journal`)."""
    board = new_game(contents.game)
    for text in contents.turns:
        board.push(board.parse_turn(text))
    return board


def export_record(board: Board[Any], result_line: str | None = None) -> str:
    """The game so far in its usual record format (rulebook notation; PDN for Dame 100), headed
    by a comment naming the game, so that a game of no turns yet is still a record of it."""
    replay = new_game(board.name)
    turns = []
    for t in board.move_stack:
        turns.append(replay.turn_notation(t))
        replay.push(t)
    header = f"{board.title}, recorded by tacticblue"
    return board.write_record(Record(turns=turns, result=result_line, comments=[header]))
