"""One game on one LED panel: the object the companion's reporters hold.

Usage::

    with GamePanel(args.led, "accasta", on_offline=report) as panel:
        panel.show(PanelView(to_move="b", last_move=("a1", "b2")))
        for event in panel.events():
            print(BUTTONS[event.button], "pressed" if event.pressed else "released")

``GamePanel(port, game)`` picks the default layout of the game's board side unless one
is given, and runs a :class:`hardware.driver.Panel` for it: ``show`` never blocks,
``events`` returns the buttons pressed since the last call (see BUTTONS for their
meaning), ``online`` says whether the panel answers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hardware.driver import Panel
from hardware.layout import LedLayout, game_geometry
from hardware.protocol import ButtonEvent
from hardware.view import PanelView, render

BUTTONS = ("turn done", "undo", "confirm")
"""What the panel's buttons mean, by index."""


def load_layout(spec: str | None, game: str) -> LedLayout:
    """``hex``/``square`` (the shipped layouts), a layout file, or None: the game's side."""
    if spec is None:
        return LedLayout.default(game_geometry(game).kind)
    if spec in ("hex", "square"):
        return LedLayout.default(spec)
    return LedLayout.load(Path(spec))


class GamePanel:
    """A :class:`Panel` that shows :class:`PanelView` s of one game."""

    def __init__(self, port: str | None, game: str, layout: LedLayout | None = None, **driver: Any) -> None:
        self.leds = (layout or load_layout(None, game)).for_game(game)
        self.panel = Panel(port, self.leds.layout.count, **driver)

    @property
    def online(self) -> bool:
        return self.panel.online

    def show(self, view: PanelView) -> None:
        self.panel.show(render(view, self.leds))

    def events(self) -> list[ButtonEvent]:
        return self.panel.events()

    def close(self) -> None:
        self.panel.close()

    def __enter__(self) -> "GamePanel":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
