#!/usr/bin/env python3
"""make_fixtures.py - regenerates the binary test fixtures in this folder with
the Python standard library only, so the files come from an encoder written
independently of warpscope's own PNG and safetensors writers.

  image_4x2.png        4x2 8-bit RGB PNG with the pixels listed in PNG_PIXELS
  mixed.safetensors    F32, F16, BF16 and scalar tensors plus metadata; the
                       header lists tensors in a different order than the data
  image_noise96.gif    96x96 GIF of seeded noise (palette i -> (i, 255-i, 7i));
                       its LZW table fills and clears, codes reach 12 bits
  fuzz_image/          the image fuzzer's seed corpus: a tiny file per format
                       (GIF, BMP, TGA, QOI, PGM, PBM, TIFF decode; JPEG, WEBP
                       and PCX are headers only)
  header-length-zero.safetensors
                       24 zero bytes, as /dev/zero starts: the length field
                       says 0 (a seed of the safetensors fuzzer)

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


def le16(v):
    return struct.pack("<H", v)


def write_fuzz_corpus(folder):
    os.makedirs(folder, exist_ok=True)
    gif = b"GIF89a" + le16(1) + le16(1) + bytes([0x80, 0, 0]) + bytes([255, 0, 0, 0, 0, 255])
    gif += b"," + le16(0) + le16(0) + le16(1) + le16(1) + b"\x00" + bytes([2, 2, 0x44, 0x01, 0]) + b";"
    bmp = b"BM" + struct.pack("<IHHI", 62, 0, 0, 54) + struct.pack("<IiiHHIIiiII", 40, 2, 1, 1, 24, 0, 8, 0, 0, 0, 0)
    bmp += bytes([3, 2, 1, 30, 20, 10, 0, 0])
    tga = bytes([0, 0, 2]) + bytes(9) + le16(2) + le16(1) + bytes([24, 0x20]) + bytes([3, 2, 1, 30, 20, 10])
    qoi = b"qoif" + struct.pack(">II", 1, 1) + bytes([3, 0]) + bytes([0xFE, 10, 20, 30]) + bytes(7) + b"\x01"
    tif_tags = [(256, 3, 1), (257, 3, 1), (258, 3, 8), (259, 3, 1), (262, 3, 2), (273, 4, 8),
                (277, 3, 3), (278, 3, 1), (279, 4, 3)]
    tif = b"II*\x00" + struct.pack("<I", 11) + bytes([10, 20, 30]) + le16(len(tif_tags))
    tif += b"".join(struct.pack("<HHII", tag, kind, 1, value) for tag, kind, value in tif_tags) + bytes(4)
    jpg = bytes([0xFF, 0xD8, 0xFF, 0xE0, 0, 16]) + b"JFIF\x00" + bytes([1, 1, 0, 0, 1, 0, 1, 0, 0])
    jpg += bytes([0xFF, 0xC0, 0, 11, 8, 0, 2, 0, 3, 1, 1, 0x11, 0, 0xFF, 0xD9])
    vp8l = (3 - 1) | (2 - 1) << 14
    webp = b"RIFF" + struct.pack("<I", 26) + b"WEBPVP8L" + struct.pack("<I", 5) + b"\x2f" + struct.pack("<I", vp8l)
    pcx = bytes([10, 5, 1, 8]) + le16(0) + le16(0) + le16(1) + le16(0) + bytes(53) + b"\x01" + le16(2) + bytes(60)
    pcx += bytes([0xC2, 7])
    files = {"tiny.gif": gif, "tiny.bmp": bmp, "tiny.tga": tga, "tiny.qoi": qoi, "tiny.tif": tif,
             "tiny.jpg": jpg, "tiny.webp": webp, "tiny.pcx": pcx, "tiny.pgm": b"P5 2 1 255\n\x10\xf0",
             "tiny.pbm": b"P1\n# two pixels\n2 1\n1 0\n"}
    for name, data in files.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)


def lzw_encode(indices, min_size):
    """GIF's variable-width LZW: a clear code first, a clear whenever the
    table fills (4096 codes), the end code last; codes packed LSB first."""
    clear, end = 1 << min_size, (1 << min_size) + 1
    out, acc, nbits = bytearray(), 0, 0

    def emit(code, size):
        nonlocal acc, nbits
        acc |= code << nbits
        nbits += size
        while nbits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            nbits -= 8

    def reset():
        return {bytes([i]): i for i in range(clear)}, end + 1, min_size + 1

    table, nxt, size = reset()
    emit(clear, size)
    prefix = b""
    for i in indices:
        word = prefix + bytes([i])
        if word in table:
            prefix = word
            continue
        emit(table[prefix], size)
        if nxt == 4096:
            emit(clear, size)
            table, nxt, size = reset()
        else:
            table[word] = nxt
            nxt += 1
            if nxt > (1 << size) and size < 12:
                size += 1
        prefix = bytes([i])
    emit(table[prefix], size)
    emit(end, size)
    if nbits:
        out.append(acc & 0xFF)
    blocks = b"".join(bytes([len(out[k:k + 255])]) + bytes(out[k:k + 255]) for k in range(0, len(out), 255))
    return bytes([min_size]) + blocks + b"\x00"


def write_gif(path, w, h, indices, palette):
    """A GIF89a with a 256-entry global colour table and one frame."""
    head = b"GIF89a" + struct.pack("<HHBBB", w, h, 0xF7, 0, 0) + bytes(c for rgb in palette for c in rgb)
    frame = b"," + struct.pack("<HHHHB", 0, 0, w, h, 0) + lzw_encode(indices, 8)
    with open(path, "wb") as f:
        f.write(head + frame + b";")


if __name__ == "__main__":
    write_png(os.path.join(HERE, "image_4x2.png"), PNG_PIXELS)
    write_safetensors(os.path.join(HERE, "mixed.safetensors"))
    write_fuzz_corpus(os.path.join(HERE, "fuzz_image"))
    with open(os.path.join(HERE, "header-length-zero.safetensors"), "wb") as f:
        f.write(bytes(24))
    # 96x96 noise: the LZW table fills and clears, codes grow to 12 bits
    state, noise = 12345, []
    for _ in range(96 * 96):
        state = (state * 1103515245 + 12345) % 2**31
        noise.append((state >> 16) & 0xFF)
    write_gif(os.path.join(HERE, "image_noise96.gif"), 96, 96, noise, [(i, 255 - i, (7 * i) & 0xFF) for i in range(256)])
