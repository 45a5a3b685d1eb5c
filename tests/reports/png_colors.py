#!/usr/bin/env python3
"""Counts pixels of given colours in a PNG (8-bit RGB/RGBA, non-interlaced), with the standard library only.

Usage: png_colors.py FILE.png [--region X0,Y0,X1,Y1] RRGGBB [RRGGBB ...]  -> prints "RRGGBB count top" per colour,
top being the first pixel row holding the colour (-1: none), so a test can tell which colour is drawn higher up.
--region counts only pixels with X0 <= x < X1 and Y0 <= y < Y1, each a fraction of the width or height (0-1).
"""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, width, height, ctype = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise SystemExit(f"{path}: unsupported PNG (depth {depth}, colour type {ctype}, interlace {interlace})")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    width, height, bpp, rows = read_png(sys.argv[1])
    args = sys.argv[2:]
    x0, y0, x1, y1 = 0.0, 0.0, 1.0, 1.0
    if args and args[0] == "--region":
        x0, y0, x1, y1 = (float(v) for v in args[1].split(","))
        args = args[2:]
    wanted = {c.lower(): bytes.fromhex(c) for c in args}
    counts = {c: 0 for c in wanted}
    tops = {c: -1 for c in wanted}
    for y, row in enumerate(rows):
        if not (y0 * height <= y < y1 * height):
            continue
        for x in range(int(x0 * width) * bpp, min(width, int(x1 * width)) * bpp, bpp):
            px = row[x:x + 3]
            for name, rgb in wanted.items():
                if px == rgb:
                    counts[name] += 1
                    if tops[name] < 0:
                        tops[name] = y
    print(f"size {width}x{height}")
    for name, n in counts.items():
        print(f"{name} {n} {tops[name]}")


if __name__ == "__main__":
    main()
