"""Makes BVH test motion with Blender itself (the `bpy` wheel), not with our writer,
and reads our BVH back with Blender's importer.

    python motion.py OUT_DIR [FRAMES [VARIANT]]
    python motion.py read-bvh IN.bvh OUT.json   (every bone's world head per frame)
    python motion.py read-gltf IN.glb OUT.json FRAMES   (the same, by its glTF importer)

For each rig variant it builds an armature in Blender — T-pose or A-pose, Mixamo or
Blender bone names, bones rolled or not, metres or centimetres, fingers — animates it
with known curves, exports it with Blender's own BVH exporter, and writes beside it what
Blender computed: every bone's head and tail in armature space (Z-up) at every frame.
The tests compare our import against those positions, never against our own numbers.
"""

import json
import math
import sys

import bpy
from mathutils import Euler, Matrix, Vector

def read_bvh(path, out_path):
    """Blender's BVH importer on `path`: each bone's head in world space, every frame."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_anim.bvh(filepath=path, update_scene_fps=True, update_scene_duration=True)
    rig = bpy.context.view_layer.objects.active
    scene = bpy.context.scene
    frames = []
    for f in range(scene.frame_start, scene.frame_end + 1):
        scene.frame_set(f)
        frames.append({pb.name: list(rig.matrix_world @ pb.head) for pb in rig.pose.bones})
    with open(out_path, "w") as out:
        json.dump({"fps": scene.render.fps / scene.render.fps_base, "frames": frames}, out)


def read_gltf(path, out_path, frames):
    """Blender's glTF importer on `path`: each bone's head in world space at FRAMES
    frames from the start of the imported action (its first key is the file's 0 s;
    frames are 1/fps of the scene apart)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=path)
    scene = bpy.context.scene
    rigs = [o for o in scene.objects if o.type == "ARMATURE"]
    animated = [o for o in scene.objects if o.animation_data and o.animation_data.action]
    start = int(round(min(o.animation_data.action.frame_range[0] for o in animated)))
    out = []
    for f in range(frames):
        scene.frame_set(start + f)
        if rigs:
            # A skinned avatar: its bones.
            rig = rigs[0]
            out.append({pb.name: list(rig.matrix_world @ pb.head) for pb in rig.pose.bones})
        else:
            # A skeleton without a mesh comes in as empties, one per node.
            out.append({o.name: list(o.matrix_world.translation) for o in scene.objects})
    with open(out_path, "w") as handle:
        json.dump({"fps": scene.render.fps / scene.render.fps_base, "frames": out}, handle)


if sys.argv[1] == "read-bvh":
    read_bvh(sys.argv[2], sys.argv[3])
    sys.exit(0)
if sys.argv[1] == "read-gltf":
    read_gltf(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    sys.exit(0)

OUT = sys.argv[1]
FRAMES = int(sys.argv[2]) if len(sys.argv) > 2 else 61

# name -> (parent, head, tail), left side only for limbs (mirrored below); Blender's
# front is -Y, the character's left is +X, up is +Z.
TORSO = [
    ("hips", None, (0, 0, 1.00), (0, 0, 1.10)),
    ("spine", "hips", (0, 0, 1.10), (0, 0.01, 1.25)),
    ("chest", "spine", (0, 0.01, 1.25), (0, 0.0, 1.40)),
    ("neck", "chest", (0, 0.0, 1.45), (0, -0.01, 1.55)),
    ("head", "neck", (0, -0.01, 1.55), (0, -0.01, 1.75)),
]
LEFT = [
    ("shoulder", "chest", (0.02, 0, 1.40), (0.15, 0, 1.42)),
    ("upper_arm", "shoulder", (0.15, 0, 1.42), (0.42, 0, 1.42)),
    ("forearm", "upper_arm", (0.42, 0, 1.42), (0.67, 0, 1.42)),
    ("hand", "forearm", (0.67, 0, 1.42), (0.75, 0, 1.42)),
    ("thigh", "hips", (0.10, 0, 0.95), (0.10, 0, 0.52)),
    ("shin", "thigh", (0.10, 0, 0.52), (0.10, 0.01, 0.10)),
    ("foot", "shin", (0.10, 0.01, 0.10), (0.10, -0.12, 0.02)),
    ("toe", "foot", (0.10, -0.12, 0.02), (0.10, -0.20, 0.02)),
]
FINGERS = {"f_index": -0.02, "f_middle": 0.0, "f_ring": 0.02, "f_pinky": 0.035}

MIXAMO = {
    "hips": "Hips", "spine": "Spine", "chest": "Spine1", "neck": "Neck", "head": "Head",
    "shoulder": "Shoulder", "upper_arm": "Arm", "forearm": "ForeArm", "hand": "Hand",
    "thigh": "UpLeg", "shin": "Leg", "foot": "Foot", "toe": "ToeBase",
    "thumb": "HandThumb", "f_index": "HandIndex", "f_middle": "HandMiddle",
    "f_ring": "HandRing", "f_pinky": "HandPinky",
}


def bones_of(fingers):
    """Every bone as (base, side, index, parent key, head, tail), sides mirrored."""
    out = [(n, "", 0, p and (p, "", 0), h, t) for n, p, h, t in TORSO]
    for side, sx in (("L", 1), ("R", -1)):
        m = lambda v: (v[0] * sx, v[1], v[2])
        for n, p, h, t in LEFT:
            parent = (p, "" if p in ("chest", "hips") else side, 0)
            out.append((n, side, 0, parent, m(h), m(t)))
        if fingers:
            for finger, y in list(FINGERS.items()) + [("thumb", None)]:
                if finger == "thumb":
                    start, step = (0.70, -0.03, 1.41), (0.022, -0.018, -0.004)
                else:
                    start, step = (0.75, y, 1.42), (0.03, 0, 0)
                parent = ("hand", side, 0)
                for i in range(1, 4):
                    h = tuple(start[k] + step[k] * (i - 1) for k in range(3))
                    t = tuple(start[k] + step[k] * i for k in range(3))
                    out.append((finger, side, i, parent, m(h), m(t)))
                    parent = (finger, side, i)
    return out


def name_of(naming, base, side, index):
    if naming == "mixamo":
        word = MIXAMO[base]
        prefix = {"L": "Left", "R": "Right", "": ""}[side]
        return f"mixamorig:{prefix}{word}{index if index else ''}"
    name = f"{base}.{index:02d}" if index else base
    return f"{name}.{side}" if side else name


def a_pose(head, tail, side, base, angle):
    """Turns an arm point down about the shoulder joint (A-pose)."""
    if base in TORSO_NAMES or base in ("thigh", "shin", "foot", "toe", "shoulder"):
        return head, tail
    sx = 1 if side == "L" else -1
    pivot = Vector((0.15 * sx, 0, 1.42))
    turn = Matrix.Rotation(-angle * sx, 3, "Y")
    return tuple(pivot + turn @ (Vector(head) - pivot)), tuple(pivot + turn @ (Vector(tail) - pivot))


TORSO_NAMES = {n for n, *_ in TORSO}


def build(variant):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    data = bpy.data.armatures.new(variant["name"])
    rig = bpy.data.objects.new(variant["name"], data)
    bpy.context.scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    names = {}
    for base, side, index, parent, head, tail in bones_of(variant["fingers"]):
        head, tail = a_pose(head, tail, side, base, math.radians(variant["arm_down"]))
        name = name_of(variant["naming"], base, side, index)
        bone = data.edit_bones.new(name)
        bone.head, bone.tail = head, tail
        # Rolled bones: a different roll on every bone, as real rigs have.
        bone.roll = variant["roll"] * (1 + (len(names) % 5)) * 0.37
        if parent:
            bone.parent = data.edit_bones[names[parent]]
        names[(base, side, index)] = name
    bpy.ops.object.mode_set(mode="POSE")
    return rig, names


def animate(rig, names):
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, FRAMES
    scene.render.fps = 30
    for f in range(1, FRAMES + 1):
        s = (f - 1) / 30.0
        for (base, side, index), name in names.items():
            pb = rig.pose.bones[name]
            pb.rotation_mode = "XYZ"
            sign = 1 if side != "R" else -1
            if index:
                curl = math.radians(35 + 30 * math.sin(2 * s + index))
                pb.rotation_euler = Euler((curl, 0, 0.1 * sign), "XYZ")
            elif base == "hips":
                pb.rotation_euler = Euler((0.15 * math.sin(s * 2), 0.5 * math.sin(s), 0.1 * math.cos(s * 3)), "XYZ")
                pb.location = Vector((0.05 * math.sin(s * 2), 0.3 * s, -0.08 * (1 - math.cos(s * 4))))
                pb.keyframe_insert("location", frame=f)
            else:
                amp = {"upper_arm": 0.9, "forearm": 0.7, "thigh": 0.6, "shin": 0.7}.get(base, 0.25)
                pb.rotation_euler = Euler(
                    (amp * math.sin(s * 2.1 + len(base)), 0.4 * amp * math.cos(s * 1.3), amp * 0.8 * math.sin(s * 1.7 + sign)),
                    "XYZ",
                )
            pb.keyframe_insert("rotation_euler", frame=f)


def truth(rig, names):
    frames = []
    for f in range(1, FRAMES + 1):
        bpy.context.scene.frame_set(f)
        frames.append({
            name: [list(rig.pose.bones[name].head), list(rig.pose.bones[name].tail)]
            for name in names.values()
        })
    return frames


VARIANTS = [
    {"name": "mixamo_t_m", "naming": "mixamo", "arm_down": 0, "roll": 0.0, "scale": 1.0, "fingers": True},
    {"name": "blender_a_cm_rolled", "naming": "blender", "arm_down": 40, "roll": 1.0, "scale": 100.0, "fingers": True},
    {"name": "mixamo_a_cm_nofingers", "naming": "mixamo", "arm_down": 35, "roll": 0.5, "scale": 100.0, "fingers": False},
]

ONLY = sys.argv[3] if len(sys.argv) > 3 else None
for variant in VARIANTS:
    if ONLY and variant["name"] != ONLY:
        continue
    rig, names = build(variant)
    animate(rig, names)
    path = f"{OUT}/{variant['name']}.bvh"
    bpy.ops.export_anim.bvh(filepath=path, frame_start=1, frame_end=FRAMES, global_scale=variant["scale"], rotate_mode="NATIVE")
    # The same motion through Blender's FBX exporter (binary 7.4): Y-up by default,
    # Z-up for the rolled rig, units as the variant's scale says.
    up = {"axis_up": "Z", "axis_forward": "Y"} if variant["roll"] == 1.0 else {}
    bpy.ops.export_scene.fbx(
        filepath=f"{OUT}/{variant['name']}.fbx", object_types={"ARMATURE"}, add_leaf_bones=False,
        bake_anim=True, bake_anim_use_all_actions=False, bake_anim_use_nla_strips=False,
        bake_anim_simplify_factor=0.0, global_scale=variant["scale"] / 100.0 if variant["scale"] != 1.0 else 1.0,
        apply_scale_options="FBX_SCALE_ALL", **up)
    with open(f"{OUT}/{variant['name']}.json", "w") as out:
        json.dump({
            "variant": variant,
            "bones": {f"{b}|{s}|{i}": n for (b, s, i), n in names.items()},
            "rest": {n: [list(rig.data.bones[n].head_local), list(rig.data.bones[n].tail_local)] for n in names.values()},
            "frames": truth(rig, names),
        }, out)
    print(path)
