#!/usr/bin/env python3
"""make_fixtures.py - regenerates the binary test fixtures in this folder with
the Python standard library only, so the files come from an encoder written
independently of warpscope's own PNG and safetensors writers.

  image_4x2.png        4x2 8-bit RGB PNG with the pixels listed in PNG_PIXELS
  mixed.safetensors    F32, F16, BF16 and scalar tensors plus metadata; the
                       header lists tensors in a different order than the data

Run: python3 tests/data/make_fixtures.py (writes next to this script).
"""
import json
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

PNG_PIXELS = [  # rows top to bottom, (r, g, b)
    [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)],
    [(0, 0, 0), (10, 20, 30), (128, 64, 32), (200, 100, 50)],
]


def png_chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def write_png(path, rows):
    h, w = len(rows), len(rows[0])
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in rows)  # filter 0
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8-bit truecolour
    data = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", zlib.compress(raw))
    data += png_chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(data)


def write_safetensors(path):
    # (name, dtype, shape, raw little-endian bytes), in data-buffer order
    tensors = [
        ("c", "BF16", [2], struct.pack("<2H", 0x3F80, 0xBF00)),  # 1.0, -0.5
        ("a", "F32", [2, 2], struct.pack("<4f", 1.0, -2.0, 0.5, 3.25)),
        ("b", "F16", [3], struct.pack("<3H", 0x3C00, 0xC000, 0x7BFF)),  # 1, -2, 65504
        ("s", "F32", [], struct.pack("<f", 7.0)),
    ]
    header, offset = {}, 0
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
    ordered = {"__metadata__": {"source": "python-stdlib"}}
    for name in ("s", "b", "a", "c"):  # header order differs from data order
        ordered[name] = header[name]
    text = json.dumps(ordered).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(t[3] for t in tensors))


if __name__ == "__main__":
    write_png(os.path.join(HERE, "image_4x2.png"), PNG_PIXELS)
    write_safetensors(os.path.join(HERE, "mixed.safetensors"))
