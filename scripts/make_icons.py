"""Draw GameShack's app icons: web/icons/icon.svg and the 192 and 512 pixel PNGs the web app
manifest names. Standard library only (zlib and struct write the PNG); run it again after
changing the shapes below and commit the three files.

    python scripts/make_icons.py
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "gameshack" / "web" / "icons"
SIZES = (192, 512)
SAMPLES = 4  # per side of a pixel: 16 samples smooth the edges

# The icon on a unit square: a dark green tile, a white card, a red diamond on it.
GREEN, WHITE, RED = (0x0F, 0x3D, 0x2A), (0xF8, 0xFA, 0xFC), (0xDC, 0x26, 0x26)
TILE_R = 0.18
CARD = (0.28, 0.18, 0.72, 0.82)  # left, top, right, bottom
CARD_R = 0.06
DIAMOND = (0.5, 0.5, 0.13, 0.18)  # centre x, centre y, half width, half height


def in_rounded(x: float, y: float, box: tuple[float, float, float, float], r: float) -> bool:
    left, top, right, bottom = box
    if not (left <= x <= right and top <= y <= bottom):
        return False
    cx = min(max(x, left + r), right - r)
    cy = min(max(y, top + r), bottom - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def colour_at(x: float, y: float) -> tuple[int, int, int, int]:
    cx, cy, hw, hh = DIAMOND
    if abs(x - cx) / hw + abs(y - cy) / hh <= 1:
        return (*RED, 255)
    if in_rounded(x, y, CARD, CARD_R):
        return (*WHITE, 255)
    if in_rounded(x, y, (0.0, 0.0, 1.0, 1.0), TILE_R):
        return (*GREEN, 255)
    return (0, 0, 0, 0)


def pixels(size: int) -> bytes:
    rows = bytearray()
    step = 1 / (size * SAMPLES)
    for py in range(size):
        rows.append(0)  # PNG filter: none
        for px in range(size):
            acc = [0, 0, 0, 0]
            for sy in range(SAMPLES):
                for sx in range(SAMPLES):
                    x = (px * SAMPLES + sx + 0.5) * step
                    y = (py * SAMPLES + sy + 0.5) * step
                    r, g, b, a = colour_at(x, y)
                    acc[0] += r * a
                    acc[1] += g * a
                    acc[2] += b * a
                    acc[3] += a
            alpha = acc[3]
            n = SAMPLES * SAMPLES
            if alpha:
                rows += bytes((acc[0] // alpha, acc[1] // alpha, acc[2] // alpha, alpha // n))
            else:
                rows += b"\0\0\0\0"
    return bytes(rows)


def png(size: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(pixels(size), 9))
        + chunk(b"IEND", b"")
    )


def svg() -> str:
    s = 64
    left, top, right, bottom = (v * s for v in CARD)
    cx, cy, hw, hh = (v * s for v in DIAMOND)

    def n(v: float) -> str:
        return f"{v:.2f}".rstrip("0").rstrip(".")

    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {s} {s}">'
        f'<rect width="{s}" height="{s}" rx="{n(TILE_R * s)}" fill="#0f3d2a"/>'
        f'<rect x="{n(left)}" y="{n(top)}" width="{n(right - left)}" height="{n(bottom - top)}"'
        f' rx="{n(CARD_R * s)}" fill="#f8fafc"/>'
        f'<path d="M{n(cx)} {n(cy - hh)}L{n(cx + hw)} {n(cy)}L{n(cx)} {n(cy + hh)}'
        f'L{n(cx - hw)} {n(cy)}Z" fill="#dc2626"/></svg>\n'
    )


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "icon.svg").write_text(svg(), encoding="utf-8")
    for size in SIZES:
        (OUT / f"icon-{size}.png").write_bytes(png(size))


if __name__ == "__main__":
    main()
