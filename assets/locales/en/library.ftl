# library: English

# The pose library window.
library-title = Pose library
library-name-hint = name
library-save-pose = Save pose
library-save-hand = Save hand
# The hands in the Save hand menu, and the name of a hand saved without one.
library-import-folder = Import folder…
library-export-folder = Export folder…
library-empty = No saved poses yet.
# Shown in place of a thumbnail that is still being drawn.
library-rendering = rendering…

# A pose's context menu, and renaming it.
library-apply = Apply
library-rename-menu = Rename…
library-overwrite = Overwrite with the current pose
library-delete = Delete
library-rename = Rename

# Notices and errors in the banner.
library-saved = Saved '{ $name }' to the pose library
library-renamed = Renamed
library-exported = Exported { $count } { $count ->
        [one] pose
       *[other] poses
    } to { $path }
library-imported = Imported { $count } { $count ->
        [one] pose
       *[other] poses
    } from { $path }
library-imported-skipped = Imported { $count } { $count ->
        [one] pose
       *[other] poses
    } from { $path } (skipped: { $skipped })
library-warnings = Pose library: { $warnings }
library-unavailable = Pose library unavailable: { $reason }

# The library on the VR panel.
library-vr-empty = Pose library: no saved poses yet (save some on the desktop)
library-vr-page = Pose library · page { $page } of { $pages }
