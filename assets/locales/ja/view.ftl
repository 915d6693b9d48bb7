# view: Japanese

# The status line when G or R (move, rotate) cannot start in the 3D view.
view-select-bone-first = 先にボーンを選択してください（マーカーをクリック）
view-move-not-movable = G で移動できるのは手・足・肘・膝・腰です。{ $bone } は R で回転してください
view-eyes-not-posed = 目は視線に従うため、ポーズは付けられません
view-cancelled = キャンセルしました

# The status line during a G/R move or rotation: "{ verb } { bone } · { what } · { axis } · …".
view-op-status = { $verb } { $bone } · { $what } · { $axis } · クリック/{ $confirm } で確定 · 右クリック/{ $cancel } でキャンセル
view-look-status = { $verb } · { $what } · クリック/{ $confirm } で確定 · 右クリック/{ $cancel } でキャンセル
view-op-done = { $bone } の{ $verb }を確定しました
view-op-move = 移動
view-op-look = 注視
view-op-rotate = 回転
# What the move or rotation drives.
view-what-look = 頭・首・目をポインターへ
view-what-ik = IK
view-what-pole = 振り (ポール)
view-what-hips-feet-pinned = 腰 (足は固定)
view-what-hips = 腰
view-what-view-axis = 視線方向の軸まわり
view-what-locked-axis = 固定した軸まわり
# The axis lock (X, Y, Z while moving or rotating).
view-axis-x-locked = X 軸固定
view-axis-y-locked = Y 軸固定
view-axis-z-locked = Z 軸固定
view-axis-free = 自由 (X/Y/Z で軸固定)
view-pinned = { $bone } をピン留めしました：体が動いてもその場に留まります
view-unpinned = { $bone } のピンを外しました
view-pin-not-an-end = { $bone } はピン留めできません：手・足・頭をピン留めしてください
