"""Write the installable app's icons (src/seep/web/static/icons/) with the standard library.

The drawing is the favicon's: a white heart on the felt green, in a 100-unit square. This
script fills its outline (cubic curves flattened to a polygon) scanline by scanline with 4
sub-rows a pixel and exact coverage along each row, and writes RGBA PNGs with zlib, so the
same script gives the same pixels on any machine (tests/web/test_web_pwa.py checks the
committed files against it).

    python tools/icons.py            # writes the icons
    python tools/icons.py --check    # exit 1 if a committed icon differs from what it would write
"""

from __future__ import annotations

import math
import struct
import sys
import zlib
from pathlib import Path

ICONS = Path(__file__).resolve().parents[1] / "src" / "seep" / "web" / "static" / "icons"
FELT = (0x1D, 0x6B, 0x45)  # seep.css --felt
WHITE = (0xFF, 0xFF, 0xFF)
CORNER = 18.0  # the rounded square's corner radius, of 100
SUB = 4  # sub-rows a pixel

# The heart of favicon.svg, absolute: a start point and cubic segments (c1, c2, end), then
# placed by the favicon's transform (translate(20 22) scale(.6)).
_START = (50.0, 90.0)
_CURVES = (
    ((22, 65), (5, 49), (5, 29)),
    ((5, 15), (16, 5), (29, 5)),
    ((39, 5), (46, 11), (50, 19)),
    ((54, 11), (61, 5), (71, 5)),
    ((84, 5), (95, 15), (95, 29)),
    ((95, 49), (78, 65), (50, 90)),
)
_HEART_PATH = (
    "M50 90C22 65 5 49 5 29 5 15 16 5 29 5c10 0 17 6 21 14 4-8 11-14 21-14 13 0 24 10 24 24 "
    "0 20-17 36-45 61z"
)

Point = tuple[float, float]


def heart(scale: float = 0.6, dx: float = 20.0, dy: float = 22.0) -> list[Point]:
    """The heart's outline as a polygon, in the 100-unit square."""
    pts: list[Point] = [_START]
    x0, y0 = _START
    for (x1, y1), (x2, y2), (x3, y3) in _CURVES:
        for i in range(1, 33):
            t = i / 32
            u = 1 - t
            pts.append(
                (
                    u**3 * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t**3 * x3,
                    u**3 * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t**3 * y3,
                )
            )
        x0, y0 = x3, y3
    return [(dx + scale * x, dy + scale * y) for x, y in pts]


def rounded_square(r: float) -> list[Point]:
    """The square 0..100 with corners of radius ``r`` (0: square corners)."""
    if r <= 0:
        return [(0.0, 0.0), (100.0, 0.0), (100.0, 100.0), (0.0, 100.0)]
    pts: list[Point] = []
    for cx, cy, start in ((100 - r, r, -90), (100 - r, 100 - r, 0), (r, 100 - r, 90), (r, r, 180)):
        for i in range(17):
            a = math.radians(start + 90 * i / 16)
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return pts


def coverage(poly: list[Point], size: int) -> list[list[float]]:
    """The share of each pixel of a ``size`` square the polygon (even-odd) covers."""
    k = size / 100
    edges = [
        ((ax * k, ay * k), (bx * k, by * k))
        for (ax, ay), (bx, by) in zip(poly, poly[1:] + poly[:1], strict=True)
        if ay != by
    ]
    cov = [[0.0] * size for _ in range(size)]
    for row in range(size):
        line = cov[row]
        for s in range(SUB):
            y = row + (s + 0.5) / SUB
            xs = sorted(
                ax + (y - ay) * (bx - ax) / (by - ay)
                for (ax, ay), (bx, by) in edges
                if (ay <= y < by) or (by <= y < ay)
            )
            for left, right in zip(xs[::2], xs[1::2], strict=False):
                left, right = max(left, 0.0), min(right, float(size))
                px = int(left)
                while px < right:
                    line[px] += (min(right, px + 1) - max(left, px)) / SUB
                    px += 1
    return cov


def render(size: int, corner: float) -> bytes:
    """RGBA rows of the icon at ``size`` pixels, ``corner`` its radius (0: full bleed)."""
    back = coverage(rounded_square(corner), size)
    fore = coverage(heart(), size)
    raw = bytearray()
    for row in range(size):
        raw.append(0)  # the PNG filter type of the row: none
        for col in range(size):
            a = min(back[row][col], 1.0)
            h = min(fore[row][col], 1.0)
            rgb = [round(f + (w - f) * h) for f, w in zip(FELT, WHITE, strict=True)]
            raw += bytes([*rgb, round(255 * max(a, h))])
    return bytes(raw)


def png(size: int, raw: bytes) -> bytes:
    """A PNG file of ``size`` x ``size`` RGBA rows."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def svg() -> str:
    """The vector icon: the favicon's drawing."""
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
        f'<rect width="100" height="100" rx="{CORNER:g}" fill="#1d6b45"/>'
        f'<path fill="#fff" d="{_HEART_PATH}" transform="translate(20 22) scale(.6)"/></svg>\n'
    )


#: file name: (pixels, corner radius); maskable and Apple's icons fill the square (the system
#: rounds or masks them), the heart well inside the maskable safe zone (a circle of 40).
PNGS = {
    "icon-192.png": (192, CORNER),
    "icon-512.png": (512, CORNER),
    "icon-maskable-512.png": (512, 0.0),
    "apple-touch-icon.png": (180, 0.0),
}


def pixels(name: str) -> bytes:
    """The RGBA rows this script draws for icon ``name``."""
    size, corner = PNGS[name]
    return render(size, corner)


def main(argv: list[str]) -> int:
    check = "--check" in argv
    ICONS.mkdir(parents=True, exist_ok=True)
    wanted = {name: png(PNGS[name][0], pixels(name)) for name in PNGS}
    wanted_svg = svg().encode()
    stale = []
    for name, data in [*wanted.items(), ("icon.svg", wanted_svg)]:
        path = ICONS / name
        if check:
            if not path.is_file() or path.read_bytes() != data:
                stale.append(name)
        else:
            path.write_bytes(data)
    if stale:
        print("not as tools/icons.py draws them:", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
