#!/usr/bin/env python3
"""Writes resources/samples/sample.png: a synthetic landscape (sky, sun, hills, water, grain)
with a photograph's mix of smooth gradients, highlights and shadows. Standard library only."""
import math, random, struct, zlib, sys

W, H = 800, 520
rng = random.Random(7)
rows = []
for y in range(H):
    row = bytearray()
    for x in range(W):
        t = y / H
        r, g, b = 70 + 120 * t, 120 + 90 * t, 200 + 40 * t           # sky
        d = math.hypot(x - 590, y - 150)
        if d < 260:                                                  # sun glow
            k = max(0.0, 1 - d / 260) ** 2
            r, g, b = r + 185 * k, g + 140 * k, b + 40 * k
        hill = 300 + 40 * math.sin(x / 90.0) + 25 * math.sin(x / 37.0 + 1.3)
        if y > hill:                                                 # hills
            s = (y - hill) / (H - hill)
            r, g, b = 40 + 60 * (1 - s), 90 + 70 * (1 - s) * (0.6 + 0.4 * math.sin(x / 13.0)), 35 + 20 * s
        if y > 430:                                                  # water reflecting the sky
            s = (y - 430) / 90
            r, g, b = 30 + 60 * (1 - s), 70 + 70 * (1 - s), 110 + 60 * (1 - s)
            r += 25 * math.sin(x / 6.0 + y / 3.0) * (1 - s)
        n = rng.gauss(0, 4)
        row += bytes(max(0, min(255, int(v + n))) for v in (r, g, b))
    rows.append(b"\x00" + bytes(row))

def chunk(tag, data):
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xffffffff)

png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0))
png += chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b"")
out = sys.argv[1] if len(sys.argv) > 1 else "resources/samples/sample.png"
open(out, "wb").write(png)
print(out, len(png), "bytes")
