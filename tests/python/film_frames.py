"""Reads an animated WebP, APNG or GIF with Pillow (an outside decoder) and prints what it
holds as JSON: frame count, size, mode, whether it has alpha, loop count and each
frame's duration; writes frame N as an RGBA PNG.

    python film_frames.py FILM FRAME_INDEX OUT.png
"""
import json
import sys

from PIL import Image

path, index, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with Image.open(path) as film:
    info = {
        "format": film.format,
        "frames": getattr(film, "n_frames", 1),
        "animated": getattr(film, "is_animated", False),
        "size": list(film.size),
        "loop": film.info.get("loop"),
        "durations": [],
    }
    alpha = False
    for i in range(info["frames"]):
        film.seek(i)
        frame = film.convert("RGBA")
        # After the frame is loaded: Pillow's WebP reader sets a frame's duration then.
        info["durations"].append(film.info.get("duration"))
        alpha = alpha or frame.getextrema()[3][0] < 255
        if i == index:
            frame.save(out)
    info["alpha"] = alpha
print(json.dumps(info))
