"""The pictures a shared link shows (docs/FRONTEND.md, Links people share) and the installed
app's icons, drawn by the server as PNG files.

A tiny PNG encoder (zlib from the standard library, one IDAT chunk, 8-bit RGB) rather than
Pillow: the pictures are flat rectangles and small bitmap glyphs, so the whole drawing is a
few lines of scanlines, and the runtime gains no dependency.

What is drawn comes only from the public answers of the API: a game's board is the `board` of
`games.play.presenters.game_dict` as an anonymous viewer sees it (None while the game is
paused or its race runs: then every cell is drawn closed), and a race's picture is drawn from
the racers of `race_dict` (progress while it runs, the podium once it has ended). Nothing here
reads a layout."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

# The size social sites expect of a large card (OpenGraph, Twitter's summary_large_image).
WIDTH, HEIGHT = 1200, 630

Colour = tuple[int, int, int]

BACKGROUND: Colour = (0x1D, 0x35, 0x57)  # the icon's navy
INK: Colour = (0xF1, 0xFA, 0xEE)
CLOSED: Colour = (0x5B, 0x7D, 0xB1)
CLOSED_EDGE: Colour = (0x3A, 0x57, 0x85)
OPEN: Colour = (0xE6, 0xEA, 0xF0)
OPEN_EDGE: Colour = (0xC4, 0xCB, 0xD6)
MINE: Colour = (0x11, 0x11, 0x11)
BLAST: Colour = (0xE6, 0x39, 0x46)
FLAG: Colour = (0xE6, 0x39, 0x46)
WRONG: Colour = (0xF4, 0xB4, 0xB9)
NUMBERS: dict[str, Colour] = {
    "1": (0x1E, 0x5B, 0xD7),
    "2": (0x17, 0x7A, 0x33),
    "3": (0xD3, 0x2F, 0x2F),
    "4": (0x28, 0x35, 0x93),
    "5": (0x8D, 0x2F, 0x1F),
    "6": (0x00, 0x70, 0x7A),
    "7": (0x22, 0x22, 0x22),
    "8": (0x66, 0x66, 0x66),
}
PODIUM: list[Colour] = [(0xE9, 0xC4, 0x6A), (0xC0, 0xC7, 0xD1), (0xCD, 0x8B, 0x57)]
TRACK: Colour = (0x2E, 0x4A, 0x73)
BAR: Colour = (0x8E, 0xCA, 0xE6)
DONE: Colour = (0x63, 0xD4, 0x8F)

# 5 x 7 glyphs: the digits a board or a podium shows, a mine and a flag.
GLYPHS: dict[str, tuple[str, ...]] = {
    "0": (".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."),
    "1": ("..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."),
    "2": (".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"),
    "3": ("####.", "....#", "....#", ".###.", "....#", "....#", "####."),
    "4": ("...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."),
    "5": ("#####", "#....", "####.", "....#", "....#", "#...#", ".###."),
    "6": (".###.", "#....", "#....", "####.", "#...#", "#...#", ".###."),
    "7": ("#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."),
    "8": (".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."),
    "*": ("..#..", "#.#.#", ".###.", "#####", ".###.", "#.#.#", "..#.."),
    "F": (".##..", ".###.", ".####", ".#...", ".#...", ".#...", "###.."),
}


def png(width: int, height: int, scanlines: Iterable[bytes]) -> bytes:
    """An 8-bit RGB PNG of `height` scanlines of `width * 3` bytes each."""
    raw = b"".join(b"\x00" + line for line in scanlines)  # filter type 0 on every line
    if len(raw) != height * (width * 3 + 1):
        raise ValueError("the scanlines do not match the size")

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 6))
        + chunk(b"IEND", b"")
    )


class Canvas:
    """A picture as rows of pixels, drawn with filled rectangles."""

    def __init__(self, width: int, height: int, fill: Colour) -> None:
        self.width, self.height = width, height
        self.rows = [bytearray(bytes(fill) * width) for _ in range(height)]

    def rect(self, x: int, y: int, w: int, h: int, colour: Colour) -> None:
        x0, y0 = max(0, x), max(0, y)
        x1, y1 = min(self.width, x + w), min(self.height, y + h)
        if x1 <= x0 or y1 <= y0:
            return
        span = bytes(colour) * (x1 - x0)
        for row in self.rows[y0:y1]:
            row[x0 * 3 : x1 * 3] = span

    def glyph(self, char: str, x: int, y: int, scale: int, colour: Colour) -> None:
        for j, line in enumerate(GLYPHS[char]):
            for i, dot in enumerate(line):
                if dot == "#":
                    self.rect(x + i * scale, y + j * scale, scale, scale, colour)

    def text(self, chars: str, x: int, y: int, scale: int, colour: Colour) -> None:
        for k, char in enumerate(chars):
            self.glyph(char, x + k * 6 * scale, y, scale, colour)

    def encode(self) -> bytes:
        return png(self.width, self.height, (bytes(row) for row in self.rows))


def _cell(canvas: Canvas, char: str, x: int, y: int, size: int) -> None:
    edge = 1 if size >= 6 else 0
    closed = char in "#F"
    back = {"X": BLAST, "!": WRONG}.get(char, CLOSED if closed else OPEN)
    canvas.rect(x, y, size, size, CLOSED_EDGE if closed else OPEN_EDGE)
    canvas.rect(x + edge, y + edge, size - 2 * edge, size - 2 * edge, back)
    mark = {"F": "F", "!": "F", "*": "*", "X": "*"}.get(char, char if char in NUMBERS else "")
    if not mark:
        return
    colour = NUMBERS.get(char) or (FLAG if mark == "F" else MINE)
    scale = (size - 2) // 8
    if scale < 1:  # too small for a glyph: the cell's colour says it
        canvas.rect(x + edge, y + edge, size - 2 * edge, size - 2 * edge, colour)
        return
    canvas.glyph(mark, x + (size - 5 * scale) // 2, y + (size - 7 * scale) // 2, scale, colour)


def board_picture(game: dict[str, Any]) -> bytes:
    """A game's board as `game` (the public Game answer) shows it; every cell closed when the
    answer has no board (a paused game, a race game while its race runs)."""
    width, height = int(game["width"]), int(game["height"])
    rows: Sequence[str] = game["board"] or ["#" * width] * height
    size = max(1, min((WIDTH - 80) // width, (HEIGHT - 80) // height, 48))
    left, top = (WIDTH - size * width) // 2, (HEIGHT - size * height) // 2
    canvas = Canvas(WIDTH, HEIGHT, BACKGROUND)
    for y, row in enumerate(rows):
        for x, char in enumerate(row):
            _cell(canvas, char, left + x * size, top + y * size, size)
    return canvas.encode()


def race_picture(race: dict[str, Any]) -> bytes:
    """A race from its public answer: the podium (the first three places) once it has ended,
    each racer's progress bar (opened of the safe cells, as everyone sees it) before."""
    canvas = Canvas(WIDTH, HEIGHT, BACKGROUND)
    racers = race["racers"]
    if race["state"] == "finished":
        placed = [r for r in racers if r.get("place")][:3]
        heights = [360, 260, 190]
        order = [1, 0, 2]  # second, first, third from the left
        for slot, index in enumerate(order):
            if index >= len(placed):
                continue
            place = int(placed[index]["place"])
            h = heights[min(place, 3) - 1]
            x = 180 + slot * 290
            canvas.rect(x, HEIGHT - 60 - h, 250, h, PODIUM[min(place, 3) - 1])
            canvas.text(str(place), x + 125 - 25, HEIGHT - 60 - h + 30, 10, BACKGROUND)
        canvas.rect(120, HEIGHT - 60, WIDTH - 240, 8, INK)
        return canvas.encode()
    shown = racers[:8]
    lane = min(64, (HEIGHT - 120) // max(1, len(shown)))
    for k, racer in enumerate(shown):
        y = 60 + k * lane
        canvas.rect(100, y, WIDTH - 200, lane - 16, TRACK)
        safe = max(1, int(racer["safe_cells"]))
        done = min(1.0, int(racer["opened"]) / safe)
        colour = DONE if racer["state"] == "won" else BAR
        canvas.rect(100, y, int((WIDTH - 200) * done), lane - 16, colour)
    return canvas.encode()


@lru_cache(maxsize=4)
def icon(size: int) -> bytes:
    """The app's icon (the site's icon.svg, redrawn): a light mine on the navy tile."""
    canvas = Canvas(size, size, BACKGROUND)
    centre, radius = size / 2, size * 0.25
    for y in range(size):
        dy = y + 0.5 - centre
        span = radius * radius - dy * dy
        if span > 0:
            half = span**0.5
            canvas.rect(round(centre - half), y, round(2 * half), 1, INK)
    spike, thick = round(size * 0.36), max(2, round(size * 0.07))
    mid = round(centre)
    canvas.rect(mid - thick // 2, mid - spike, thick, 2 * spike, INK)
    canvas.rect(mid - spike, mid - thick // 2, 2 * spike, thick, INK)
    dot = max(2, round(size * 0.09))
    canvas.rect(round(centre - radius * 0.45), round(centre - radius * 0.45), dot, dot, BLAST)
    return canvas.encode()
