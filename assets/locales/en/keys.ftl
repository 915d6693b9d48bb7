# The key map's words (src/app/session/keymap.rs): the F1 help's mouse actions and what
# each key does. Key names (Ctrl+Z, Left arrow) are not translated.

# The F1 help window's title (src/app/ui/help.rs).
keys-help-title = Controls

# F1 help: mouse and drag actions (keymap.rs MOUSE): the gesture, and what it does.
keys-mouse-select = Left click on a marker
    .does = select that bone
keys-mouse-gizmo = Drag a gizmo arrow / ring
    .does = move along / rotate about that axis
keys-mouse-orbit = Right drag
    .does = orbit the camera
keys-mouse-pan = Middle drag / Shift + right drag
    .does = pan
keys-mouse-zoom = Mouse wheel
    .does = zoom
keys-mouse-timeline = Click / drag on the timeline
    .does = move the playhead; drag a key to move it
keys-mouse-library = Drag a library pose onto the timeline
    .does = put that pose in a key there (one undo step)
keys-mouse-drop-model = Drop a .vrm on the window
    .does = open that model (keys and pose carry over)
keys-mouse-drop-json = Drop a project or pose .json
    .does = open the project / apply the pose

# F1 help: what each key does (keymap.rs KEYMAP), in the 3D view with a bone selected.
keys-view-front = view from the front
keys-view-back = view from the back
keys-view-right = view from the right
keys-view-left = view from the left
keys-view-top = view from above
keys-view-bottom = view from below
keys-frame-selection = frame the selected bone
keys-frame-all = frame the whole avatar
keys-look = look: the head turns to the pointer (the neck and chest a little, the eyes too); click or Enter sets it
keys-move = move the selection: hands/feet by IK, elbows/knees swing (pole), hips (feet pinned)
keys-pin = pin the selected hand, foot or head where it is (P again lets it go): it stays while the body moves
keys-rotate = rotate the selected bone about the view axis

# F1 help: during a move or rotation (G / R).
keys-lock-x = during G or R: lock to the world X axis; press again to release
keys-lock-y = during G or R: lock to the world Y axis
keys-lock-z = during G or R: lock to the world Z axis
keys-confirm = confirm the move or rotation (one undo step); a left click does too
keys-cancel = cancel it: everything returns exactly; a right click does too

# F1 help: anywhere in the window.
keys-add-key = add a key at the playhead
keys-delete-key = delete the selected keys (or the key at the playhead)
keys-select-all-keys = select every key
keys-copy = copy the selected keys, or the pose when no key is selected
keys-paste = paste keys at the playhead (spacing kept), or the pose onto the Edit menu's part
keys-paste-mirrored = paste mirrored left/right
keys-duplicate-keys = duplicate the selected keys: the copies follow the pointer until a click puts them down
keys-play-stop = play / stop
keys-previous-frame = previous frame
keys-next-frame = next frame
keys-undo = undo
keys-redo = redo
keys-save = save the project
keys-save-as = save the project as…
keys-open-project = open a project
keys-quit = quit (asks to save unsaved changes)
keys-help = show / hide this help
