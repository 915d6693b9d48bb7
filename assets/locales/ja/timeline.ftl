# timeline: Japanese

# The timeline panel along the bottom (and the same buttons on the VR panel).
timeline-play = ▶ 再生
timeline-stop = ■ 停止
timeline-loop = ループ
timeline-time = 時間
# After a time in seconds in the value fields (no space before 秒).
timeline-seconds-suffix = 秒
timeline-frame = フレーム { $frame }
timeline-length = 長さ
timeline-add-key = + キー
    .tooltip = K: 再生ヘッドの位置にキーを追加します
timeline-delete-key = キーを削除
timeline-delete-keys = キーを削除
timeline-ease = イージング
# The ease list when the selected keys have different eases.
timeline-ease-mixed = 混在
timeline-scale = 伸縮
    .tooltip = 選択したキーの時間を再生ヘッドを基準に伸縮します
timeline-key-time = キーの時間
timeline-undo = 元に戻す
timeline-redo = やり直し

# Playback controls at the right of the timeline bar.
timeline-speed =
    .tooltip = 再生速度
timeline-loop-in = イン点
    .tooltip = 再生ヘッドの位置からループ再生します
timeline-loop-out = アウト点
    .tooltip = 再生ヘッドの位置までループ再生します
timeline-loop-clear =
    .tooltip = ループ範囲を解除します
timeline-export-fps =
    .tooltip = 書き出しFPS: VRMA を書き出すときのフレームレートです

# Second labels on the ruler.
timeline-ruler-seconds = { $seconds }秒

# Eases, named after their stable names in the project file (LINEAR, IN-OUT, …):
# the full name in the ease list, the short one beside a key on the ruler.
timeline-ease-linear = リニア
    .short = リニア
timeline-ease-in-out = イーズインアウト
    .short = インアウト
timeline-ease-in = イーズイン
    .short = イン
timeline-ease-out = イーズアウト
    .short = アウト
timeline-ease-hold = ホールド
    .short = ホールド

# The VR panel's timeline buttons and time display.
timeline-vr-ease = イージング: { $ease }
timeline-vr-ease-none = イージング —
timeline-vr-time = { $seconds }秒 · フレーム { $frame }
