# view: English

# The status line when G or R (move, rotate) cannot start in the 3D view.
view-select-bone-first = Select a bone first (click its marker)
view-move-not-movable = G moves hands, feet, elbows, knees and the hips; rotate { $bone } with R
view-eyes-not-posed = Eyes follow the gaze and are not posed
view-cancelled = Cancelled

# The status line during a G/R move or rotation: "{ verb } { bone } · { what } · { axis } · …".
view-op-status = { $verb } { $bone } · { $what } · { $axis } · click/{ $confirm } confirm · right click/{ $cancel } cancel
view-look-status = { $verb } · { $what } · click/{ $confirm } confirm · right click/{ $cancel } cancel
view-op-done = { $verb } { $bone } done
view-op-move = Move
view-op-look = Look
view-op-rotate = Rotate
# What the move or rotation drives.
view-what-look = head, neck and eyes to the pointer
view-what-ik = IK
view-what-pole = swing (pole)
view-what-hips-feet-pinned = hips, feet pinned
view-what-hips = hips
view-what-view-axis = about the view axis
view-what-locked-axis = about the locked axis
# The axis lock (X, Y, Z while moving or rotating).
view-axis-x-locked = X locked
view-axis-y-locked = Y locked
view-axis-z-locked = Z locked
view-axis-free = free (X/Y/Z lock)
view-pinned = { $bone } pinned: it stays where it is while the body moves
view-unpinned = { $bone } let go
view-pin-not-an-end = { $bone } cannot be pinned: pin a hand, a foot or the head
