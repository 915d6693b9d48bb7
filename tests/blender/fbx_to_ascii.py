"""Rewrites a binary FBX (7.x) as ASCII FBX: the same node tree, property for property.

    python fbx_to_ascii.py IN.fbx OUT.fbx

Blender's FBX exporter writes binary only, and the one ASCII writer on this machine
(Assimp 5.2's exporter) writes rotation curves in radians where FBX means degrees; so
the tests turn Blender's own files into ASCII with this, keeping every value as written.
Names stored as "Name\\0\\1Class" in binary are "Class::Name" in ASCII, booleans T/F,
arrays "*N { a: ... }".
"""
import base64
import struct
import sys
import zlib

def read_nodes(data, pos, end, wide):
    nodes = []
    while pos < end:
        if wide:
            end_offset, count, length = struct.unpack_from("<QQQ", data, pos); pos += 24
        else:
            end_offset, count, length = struct.unpack_from("<III", data, pos); pos += 12
        name_len = data[pos]; pos += 1
        if end_offset == 0:
            break  # the null record ending a list
        name = data[pos:pos + name_len].decode(); pos += name_len
        props = []
        for _ in range(count):
            t = chr(data[pos]); pos += 1
            if t in "YCIFDL":
                fmt = {"Y": "<h", "C": "<?", "I": "<i", "F": "<f", "D": "<d", "L": "<q"}[t]
                v = struct.unpack_from(fmt, data, pos)[0]; pos += struct.calcsize(fmt)
                props.append((t, v))
            elif t in "fdlib":
                n, enc, clen = struct.unpack_from("<III", data, pos); pos += 12
                raw = data[pos:pos + clen]; pos += clen
                if enc == 1:
                    raw = zlib.decompress(raw)
                fmt = {"f": "f", "d": "d", "l": "q", "i": "i", "b": "?"}[t]
                props.append((t, list(struct.unpack("<%d%s" % (n, fmt), raw))))
            elif t in "SR":
                n = struct.unpack_from("<I", data, pos)[0]; pos += 4
                props.append((t, data[pos:pos + n])); pos += n
            else:
                raise ValueError("unknown property type %r" % t)
        children = read_nodes(data, pos, end_offset, wide) if pos < end_offset else []
        nodes.append((name, props, children))
        pos = end_offset
    return nodes

def number(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        return repr(v)
    return str(v)

def prop(t, v):
    if t == "S":
        if b"\x00\x01" in v:  # "Name\0\1Class" is "Class::Name" in ASCII
            name, cls = v.split(b"\x00\x01", 1)
            v = cls + b"::" + name
        return '"%s"' % v.decode("utf-8", "replace").replace('"', "&quot;")
    if t == "R":
        return '"%s"' % base64.b64encode(v).decode()
    if t == "C":
        return "T" if v else "F"
    return number(v)

def write(nodes, out, depth):
    pad = "\t" * depth
    for name, props, children in nodes:
        arrays = [p for p in props if p[0] in "fdlib"]
        if arrays:
            (t, values), = arrays
            out.append("%s%s: *%d {\n%s\ta: %s\n%s}\n" % (pad, name, len(values), pad, ",".join(number(v) for v in values), pad))
            continue
        line = "%s%s: %s" % (pad, name, ", ".join(prop(t, v) for t, v in props))
        if children:
            out.append(line + " {\n")
            write(children, out, depth + 1)
            out.append(pad + "}\n")
        else:
            out.append(line + "\n")

data = open(sys.argv[1], "rb").read()
assert data.startswith(b"Kaydara FBX Binary  \x00"), "not a binary FBX"
version = struct.unpack_from("<I", data, 23)[0]
nodes = read_nodes(data, 27, len(data), version >= 7500)
out = ["; FBX %d.%d.0 project file\n" % (version // 1000, version % 1000 // 100)]
write(nodes, out, 0)
open(sys.argv[2], "w").write("".join(out))
