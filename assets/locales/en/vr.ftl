# vr: English

# Why VR cannot start (the status line, and View ▸ Enter VR's hover text).
vr-unavailable-staying = VR is not available: { $reason }. Staying on the desktop.
vr-unavailable-no-xr-build = this build has no VR support: build it with `cargo build --release --features xr`
vr-no-loader = the OpenXR loader (libopenxr_loader.so) is not installed ({ $error }); on Debian/Ubuntu: sudo apt-get install libopenxr-loader1 libopenxr-dev
vr-no-runtime-windows = no OpenXR runtime is active ({ $error }); start Meta Quest Link (in the Meta Quest Link app: Settings > General > OpenXR Runtime > Set Meta Quest Link as active) or SteamVR, then try again
vr-no-runtime = no OpenXR runtime is active ({ $error }); start SteamVR, Meta Quest Link, Monado or WiVRn, or point XR_RUNTIME_JSON at a runtime
vr-runtime-did-not-start = the OpenXR runtime is there but did not start (no headset connected, or no Vulkan device it can use; see the log)
vr-controllers-failed = VR controllers cannot be set up: { $error }

# Controller button names the OpenXR runtime shows in its binding settings.
vr-action-a = A: add key
vr-action-b = B: undo
vr-action-x = X: play or stop
vr-action-y = Y: redo

# The in-headset panel's title row (fixed-size buttons: keep them short) and help line.
vr-panel-export = Export VRMA
vr-panel-turn-snap = Turn: snap 30°
vr-panel-turn-smooth = Turn: smooth
vr-panel-hold = Hold in hand
vr-panel-pin = Pin here
vr-panel-help = Trigger or fingertip: press · drag a pose onto the ruler to key it · A key · B undo · Y redo · X play · left stick: turn, walk, hold to recentre · both grips: scale · right stick click: hand presets

# The hand-preset menu on the left hand (small round buttons: keep them short).
# Its middle button: which of the avatar's hands the presets shape.
vr-hand-both = Both hands
vr-hand-left = Left hand
vr-hand-right = Right hand
