# The editor window's panels and menus (src/app/ui/), and the names of core things they show.

# Menu bar: the menus' titles (src/app/ui/menu.rs).
ui-menu-file = File
ui-menu-edit = Edit
ui-menu-pose = Pose
ui-menu-view = View
ui-menu-help = Help

# File menu (menu.rs). Key hints (Ctrl+O…) are added by the code.
ui-menu-open-project = Open project…
ui-menu-open-recent = Open recent
ui-menu-recent-none = Nothing opened yet
ui-menu-recent-model = model
ui-menu-recent-project = project
ui-menu-recent-gone = { $path } is gone
ui-menu-recent-clear = Clear the list
ui-menu-save-project = Save project
ui-menu-save-project-as = Save project as…
ui-menu-import-animation = Import animation (VRMA, glTF, BVH, FBX, VMD)…
ui-menu-export-film = Export animation as video (WebP, APNG, GIF, MP4)…
ui-menu-import-rate = Import keys per second
    .tooltip = 0 = a key wherever the source has one; otherwise thin dense clips to this rate
ui-menu-open-model = Open model…
ui-menu-open-mannequin = Open built-in mannequin
ui-menu-load-pose = Load pose…
ui-menu-pose-from-image = Pose from image…
    .tooltip = Find the person in a photo and give the model their pose
ui-menu-import-video = Import video…
    .tooltip = Turn a video of a person (MP4 or MOV, H.264) into keys with planted feet, at the playhead
ui-menu-type-path = Or type a path (.vrm, project, pose, photo, video, .bvh):
ui-menu-open = Open
ui-menu-quit = Quit


# Edit menu (menu.rs).
ui-menu-undo = Undo
ui-menu-redo = Redo
ui-menu-select-all-keys = Select all keys
ui-menu-copy-keys = Copy keys
ui-menu-copy-pose = Copy pose
ui-menu-paste = Paste
ui-menu-paste-mirrored = Paste mirrored
ui-menu-duplicate-keys = Duplicate keys
ui-menu-delete-keys = Delete keys
ui-menu-paste-onto = Paste onto: { $part }
    .tooltip = where a pasted or library pose goes


# Pose menu and the inspector's whole-pose buttons (menu.rs POSE_ACTIONS).
ui-pose-reset = Reset pose
ui-pose-mirror = Mirror left/right
ui-pose-mirror-button = Mirror
ui-pose-arms-down = Arms down
ui-menu-paste-pose-onto = Paste pose onto { $part }
ui-menu-paste-pose-mirrored-onto = Paste pose mirrored onto { $part }

# View menu (menu.rs).
ui-menu-pose-library = Pose library
ui-menu-enter-vr = Enter VR
ui-menu-leave-vr = Leave VR
ui-menu-vr-unavailable = VR is not available: { $reason }
ui-menu-spring-bones = Spring bones (live)
    .tooltip = Hair and skirts swing as you pose and play; stills always show them settled
ui-menu-onion-skin = Onion skin
    .tooltip = The previous and next keys' poses as ghosts (never in stills)
ui-menu-onion-shows = Onion skin shows
ui-menu-onion-keys = The keys either side
ui-menu-onion-frames = ±{ $count } frames
ui-menu-language = Language

# View menu: following the webcam (menu.rs camera_items).
ui-camera-follow = Follow camera
    .tooltip = The avatar follows the person in the camera, mirrored
ui-camera-unavailable = { $why }. Start with --camera-frames DIR to follow a folder of frames instead.
ui-camera-none = No camera found (no /dev/video* device). Plug one in, or start with --camera-frames DIR to follow a folder of frames.
ui-camera-capture = Capture key
ui-camera-followed = { $count } frames followed

# Help menu (menu.rs).
ui-menu-controls = Controls

# Status line and error banner (src/app/ui/status.rs).
ui-status-dismiss = Dismiss
ui-status-cancel = Cancel
ui-status-hint = Click a marker: select · Right drag: orbit · Middle / Shift+right drag: pan · Wheel: zoom · F1: help

# File ▸ Export PNG… window (src/app/ui/png_window.rs).
ui-png-title = Export PNG
ui-png-about = The avatar alone, anti-aliased, with straight alpha.
ui-png-size = Size
ui-png-camera = Camera
ui-png-current-view = Current view
ui-png-transparent = Transparent background
ui-png-every-key = Every key, one camera
    .tooltip = A numbered PNG of each key (name_001.png, …), all framed alike so that they line up
ui-png-export = Export…
ui-png-export-film = Export animation…
    .tooltip = The whole timeline as a moving picture: the name you give says which (.webp or .png loop with a transparent background, .gif, .mp4)


# Right panel: hands, gaze and expressions (src/app/ui/expressions.rs, hands.rs).
ui-hands = Hands
ui-gaze = Gaze
ui-expressions = Expressions
ui-expressions-none = This model has no expressions.
ui-side-left = Left
ui-side-right = Right
ui-side-both = Both
ui-hands-copy-to-right = Copy to right
ui-hands-copy-to-left = Copy to left
ui-hands-fingers-left = Fingers (left)
ui-hands-fingers-right = Fingers (right)
ui-hands-finger-sliders = { $finger } (curl, spread)
ui-hands-thumb-sliders = { $finger } (curl, out)
ui-gaze-no-eyes = This model has no eyes set up; the gaze is still exported.
ui-gaze-off = Off
ui-gaze-ahead = Ahead
ui-gaze-camera = Camera
ui-gaze-point = Point
ui-gaze-drag = Drag the eye-target handle in the view, or type:
ui-gaze-turned = Turned { $yaw }° across, { $pitch }° down (imported)


# Left panel: the inspector (src/app/ui/inspector.rs).
ui-inspector-untitled-model = Untitled model
ui-inspector-mannequin = built-in mannequin
ui-inspector-grip = Grip
ui-inspector-pin-feet = Pin feet
    .tooltip = Moving the hips keeps the feet in place
ui-inspector-keep-angle = Keep hand/foot angle
    .tooltip = IK keeps the hand's or foot's world rotation
ui-inspector-body-follows = Body follows
    .tooltip = A hand, foot or the head dragged past its reach leans the spine and moves the hips after it; pinned ends stay
ui-inspector-limits = Limits
    .tooltip = Elbows and knees bend one way and every joint stays within a human range; off for stylised poses
ui-inspector-pinned = Pinned
    .tooltip = Keep this hand, foot or head where it is while the body moves (P)
ui-inspector-selected = Selected: { $bone }
ui-inspector-eyes = Eyes follow the gaze (look-at); they are not posed as bones.
ui-inspector-reset-bone = Reset bone
ui-inspector-bones = Bones


# The inspector's bone groups.
ui-bone-group-torso = Torso
ui-bone-group-head = Head
ui-bone-group-left-arm = Left arm
ui-bone-group-right-arm = Right arm
ui-bone-group-left-hand = Left hand
ui-bone-group-right-hand = Right hand
ui-bone-group-legs = Legs
