# timeline: English

# The timeline panel along the bottom (and the same buttons on the VR panel).
timeline-play = ▶ Play
timeline-stop = ■ Stop
timeline-loop = Loop
timeline-time = Time
# After a time in seconds in the value fields; the quoted space keeps the gap before the unit.
timeline-seconds-suffix = {" "}s
timeline-frame = frame { $frame }
timeline-length = Length
timeline-add-key = + Key
    .tooltip = K: add a key at the playhead
timeline-delete-key = Delete key
timeline-delete-keys = Delete keys
timeline-ease = Ease
# The ease list when the selected keys have different eases.
timeline-ease-mixed = mixed
timeline-scale = Scale
    .tooltip = the selected keys' times, around the playhead
timeline-key-time = Key time
timeline-undo = Undo
timeline-redo = Redo

# Playback controls at the right of the timeline bar.
timeline-speed =
    .tooltip = playback speed
timeline-loop-in = In
    .tooltip = play and loop from the playhead
timeline-loop-out = Out
    .tooltip = play and loop up to the playhead
timeline-loop-clear =
    .tooltip = clear the loop range
timeline-export-fps =
    .tooltip = the frame rate VRMA export samples at

# Second labels on the ruler.
timeline-ruler-seconds = { $seconds }s

# Eases, named after their stable names in the project file (LINEAR, IN-OUT, …):
# the full name in the ease list, the short one beside a key on the ruler.
timeline-ease-linear = LINEAR
    .short = LINEAR
timeline-ease-in-out = IN-OUT
    .short = IN-OUT
timeline-ease-in = IN
    .short = IN
timeline-ease-out = OUT
    .short = OUT
timeline-ease-hold = HOLD
    .short = HOLD

# The VR panel's timeline buttons and time display.
timeline-vr-ease = Ease: { $ease }
timeline-vr-ease-none = Ease —
timeline-vr-time = { $seconds } s · frame { $frame }
