# files: English

# File dialogs: the titles of the built-in dialog and of the native one
files-title-open-model = Open model
files-title-load-pose = Load pose
files-title-open-project = Open project
files-title-save-project-as = Save project as
files-title-import-animation = Import animation
files-title-pose-from-image = Pose from image
files-title-import-video = Import video
files-title-export = Export { $format }
files-title-export-film = Export animation as video

# File dialogs: the file type filters
files-filter-model = VRM model
files-filter-pose = Pose
files-filter-project = VRMA Maker project
files-filter-animation = Animation (VRMA, glTF clip, BVH, FBX, VMD)
files-filter-photo = Photo (PNG, JPEG)
files-filter-video = Video (MP4, MOV)
files-filter-vrma = VRM Animation
files-filter-bvh = BVH motion capture
files-filter-glb = glTF binary
files-filter-png = PNG image

# The built-in file dialog (desktops without a native one); its buttons
files-path-file = File:
files-open = Open
files-save = Save
files-replace = Replace
files-cancel = Cancel
files-path-type-a-name = Type a file name
files-path-folder-add-a-name = { $path } is a folder: add a file name
files-path-no-file = No file at { $path }
files-path-no-folder = No folder { $path }
files-path-is-a-folder = { $path } is a folder
files-path-exists = { $name } exists. Press Replace to write over it.

# Status line and error banner: opening, saving, loading a pose
files-status-opened = Opened { $path }
files-status-saved = Saved { $path }
files-save-failed = Cannot save: { $reason }
files-dialog-failed = The file dialog failed: { $reason }
files-pose-loaded = Pose loaded from { $path }
files-pose-loaded-warnings = Pose loaded with warnings: { $warnings }

# Status line and error banner: File ▸ Export and File ▸ Import animation
files-rendering-png = Rendering the PNG…
files-rendering-pngs = { $count ->
    [one] Rendering 1 PNG…
   *[other] Rendering { $count } PNGs…
}
files-export-running = An export is already running
files-exporting = Exporting { $format }
files-exported = Exported { $path } ({ $summary })
files-no-keys-to-export = There are no keys to export: add a key with K, or untick "Every key"
files-import-running = An import is already running
files-importing = Importing { $path }…
files-imported = { $keys ->
    [one] Imported 1 key from { $path }
   *[other] Imported { $keys } keys from { $path }
}
files-restored = { $keys ->
    [one] Restored 1 key from { $path }
   *[other] Restored { $keys } keys from { $path }
}
files-import-warnings = (warnings: { $warnings })
files-import-failed = Cannot import: { $reason }
files-import-failed-at = Cannot import { $path }: { $reason }

# The question before closing, quitting or opening over unsaved work
files-unsaved-title = Unsaved changes
files-unsaved-before-closing = Save the changes to { $project } before closing?
files-unsaved-before-opening = Save the changes to { $project } before opening { $name }?
files-dont-save = Don't save
files-export-running-title = Export running
files-export-running-question = An export is still being written. Quit when it has finished?
files-quit-when-done = Quit when done
files-keep-working = Keep working
files-quitting-after-export = Quitting when the export has finished…

# The recovery offer at start, and autosave
files-recover-title = Recover unsaved work?
files-recover-question = { $keys ->
    [one] Unsaved work on { $name } (1 key) was kept from { $when }. Recover it?
   *[other] Unsaved work on { $name } ({ $keys } keys) was kept from { $when }. Recover it?
}
files-recover = Recover
files-recover-not-now = Not now (keep it for the next start)
files-recover-just-now = less than a minute ago
files-recover-minutes-ago = { $minutes ->
    [one] 1 minute ago
   *[other] { $minutes } minutes ago
}
files-recover-hours-ago = { $hours } hours ago
files-recover-unsaved-project = an unsaved project
files-recover-failed-kept = { $why } The unsaved work is kept; find the model and recover it again.
files-autosave-failed = Autosave failed: { $reason }

# File ▸ Pose from image: the status line and the landmark window
files-photo-running = A photo is already being read
files-photo-finding = Finding the pose in { $path }…
files-photo-read-failed = Reading { $path } failed: { $reason }
files-photo-models-unavailable = the pose models are unavailable
files-photo-posed = Posed from the photo: { $parts }.
files-photo-kept = Not clearly seen, so kept as they were: { $parts }.
files-photo-title = Pose from { $name }
files-photo-key-used = green: used
files-photo-key-unclear = grey: not clear enough
files-photo-key-hands = blue: hands
files-photo-refine = Refine it with the handles; Undo (Ctrl+Z) takes the whole pose back.
files-photo-flip-hint = A limb pointing the wrong way (towards you or away)? Click its line to flip it; or click the picture, then Tab picks a limb and F flips it (Esc, or the pointer off the picture, gives the keys back).
files-photo-picked = Picked: { $bone }

# File ▸ Import video: its window
files-video-title = Import video: { $name }
files-video-about = { $width }×{ $height }, { $fps } fps, { $seconds } s
files-video-from = From
files-video-to = to
files-video-mirror = Mirror (a selfie video: the avatar moves as your reflection)
    .tooltip = Swaps left and right, as the live camera does
files-video-import = Import at { $time } s
files-video-progress = Reading frame { $done } of { $total }
files-video-goes-at = The keys go in at { $time } s (one undo step).
files-video-cancel = Cancel
files-video-running = A video is already being read
files-video-cancelled = Video import cancelled: nothing changed
files-video-failed = Reading { $path } failed: { $reason }
files-video-imported = { $keys } keys and { $plants } planted spans from { $path } inserted at { $time } s
files-list-separator = {", "}

# The body parts the photo's summary names
files-part-torso = torso
files-part-head = head
files-part-left-arm = left arm
files-part-right-arm = right arm
files-part-left-leg = left leg
files-part-right-leg = right leg
files-part-left-fingers = left fingers
files-part-right-fingers = right fingers

# View ▸ Follow camera: its problem line in the View menu
files-camera-stopped = following the camera stopped unexpectedly
files-camera-cannot-start = cannot start following: { $reason }
files-camera-check = { $reason }; check the camera and turn Follow camera on again
files-camera-nothing-yet = Nothing to capture yet: nobody has been followed
files-import-title = Import animation
files-import-source = { $joints ->
    [one] { $seconds } s of motion at { $fps } fps, 1 joint
   *[other] { $seconds } s of motion at { $fps } fps, { $joints } joints
}
files-import-keys = Keys:
files-import-reduced = Only where needed
files-import-every-frame = Every frame
files-import-tolerance = Within
files-import-range = Take from
files-import-to = to
files-import-reading = Reading…
files-import-result = { $keys ->
    [one] 1 key over { $seconds } s
   *[other] { $keys } keys over { $seconds } s
}
files-import-preview = Preview
files-import-mapping = Bone mapping: { $mapped ->
    [one] 1 bone
   *[other] { $mapped } bones
} from the source, { $unused ->
    [one] 1 joint
   *[other] { $unused } joints
} unused
files-import-none = (none)
files-import-at-playhead = Insert at the playhead ({ $time } s)
files-import-replace = Replace the timeline
files-import-ok = Import
files-import-cancel = Cancel
files-import-take = Take:
files-import-longest = (the longest)
