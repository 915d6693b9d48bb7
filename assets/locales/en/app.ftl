# app: English

# The title bar and the unsaved-changes question: a project or model without a name
app-untitled = Untitled
app-untitled-model = untitled model

# Status line and error banner: opening a model, a project or recovered work
app-the-mannequin = the mannequin
app-opening-reading = Opening { $name }: reading and checking…
app-opening-uploading = Opening { $name }: decoding textures and uploading meshes…
app-opened-with-warnings = Opened with warnings: { $warnings }
app-open-failed = Cannot open { $path }: { $reason }
app-open-project-failed = Cannot open the project: { $reason }
app-recover-failed = Cannot recover: { $reason }
app-recovery-file-gone = The recovery file is gone
app-display-failed = Cannot display the model: { $reason }
app-part-not-loaded = Part of the model could not be loaded: { $reason }
app-gpu-error = The GPU reported an error while drawing: { $error }. Your work is kept.
app-gpu-cannot-draw = This model cannot be drawn on this GPU ({ $error }); the previous model is back and your work is kept.

# Status line and error banner: File ▸ Export PNG (render-png prints them in English)
app-still-too-big = a { $width }×{ $height } still is larger than this GPU draws ({ $side } pixels a side); choose a smaller size
app-still-timed-out = rendering { $path } timed out
app-still-not-reduced = the still could not be reduced
app-still-saved = Saved { $path }
app-png-encode-failed = cannot encode the PNG: { $reason }
app-png-write-failed = cannot write { $path }: { $reason }

# Error banner: work on a worker thread that failed
app-work-stopped = the work stopped unexpectedly
app-worker-cannot-start = cannot start a worker: { $reason }

# The message box when no graphics device starts (the console's line stays English)
app-no-device = No graphics device could be started (tried { $tried }). { $advice }.
app-no-device-advice-windows = Update the graphics driver (from Windows Update, or from AMD, Intel or NVIDIA), then start VRMA Maker again
app-no-device-advice-macos = Update macOS, then start VRMA Maker again
app-no-device-advice-linux = Install Mesa's Vulkan driver (Debian/Ubuntu: sudo apt-get install mesa-vulkan-drivers libvulkan1), then start again
app-film-rendering = Rendering the animation
app-film-cancelled = The animation export was cancelled; nothing was written
app-film-stopped = rendering the animation stopped: no frame came from the renderer for two minutes
