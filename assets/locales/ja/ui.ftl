# The editor window's panels and menus (src/app/ui/), and the names of core things they show.

# Menu bar: the menus' titles (src/app/ui/menu.rs).
ui-menu-file = ファイル
ui-menu-edit = 編集
ui-menu-pose = ポーズ
ui-menu-view = 表示
ui-menu-help = ヘルプ

# File menu (menu.rs). Key hints (Ctrl+O…) are added by the code.
ui-menu-open-project = プロジェクトを開く…
ui-menu-open-recent = 最近使ったファイル
ui-menu-recent-none = まだ何も開いていません
ui-menu-recent-model = モデル
ui-menu-recent-project = プロジェクト
ui-menu-recent-gone = { $path } が見つかりません
ui-menu-recent-clear = 履歴を消去
ui-menu-save-project = プロジェクトを保存
ui-menu-save-project-as = 名前を付けて保存…
ui-menu-import-animation = アニメーションを読み込み (VRMA、glTF、BVH、FBX、VMD)…
ui-menu-export-film = アニメーションを動画として書き出し (WebP、APNG、GIF、MP4)…
ui-menu-import-rate = 読み込み時の毎秒キー数
    .tooltip = 0 = 元のキーをすべて読み込みます。それ以外は、密なクリップのキーをこの数まで間引きます
ui-menu-open-model = モデルを開く…
ui-menu-open-mannequin = 内蔵マネキンを開く
ui-menu-load-pose = ポーズを読み込み…
ui-menu-pose-from-image = 画像からポーズ…
    .tooltip = 写真に写った人物を見つけ、そのポーズをモデルに付けます
ui-menu-import-video = 動画を読み込み…
    .tooltip = 人が映った動画 (MP4 または MOV、H.264) を、足の接地つきのキーにして再生ヘッドの位置に入れます
ui-menu-type-path = またはパスを入力 (.vrm、プロジェクト、ポーズ、写真、動画、.bvh):
ui-menu-open = 開く
ui-menu-quit = 終了


# Edit menu (menu.rs).
ui-menu-undo = 元に戻す
ui-menu-redo = やり直し
ui-menu-select-all-keys = すべてのキーを選択
ui-menu-copy-keys = キーをコピー
ui-menu-copy-pose = ポーズをコピー
ui-menu-paste = 貼り付け
ui-menu-paste-mirrored = 左右反転して貼り付け
ui-menu-duplicate-keys = キーを複製
ui-menu-delete-keys = キーを削除
ui-menu-paste-onto = 貼り付け先: { $part }
    .tooltip = 貼り付けたポーズやライブラリのポーズを適用する部位


# Pose menu and the inspector's whole-pose buttons (menu.rs POSE_ACTIONS).
ui-pose-reset = ポーズをリセット
ui-pose-mirror = 左右反転
ui-pose-mirror-button = 左右反転
ui-pose-arms-down = 腕を下ろす
ui-menu-paste-pose-onto = ポーズを{ $part }に貼り付け
ui-menu-paste-pose-mirrored-onto = ポーズを左右反転して{ $part }に貼り付け

# View menu (menu.rs).
ui-menu-pose-library = ポーズライブラリ
ui-menu-enter-vr = VR を開始
ui-menu-leave-vr = VR を終了
ui-menu-vr-unavailable = VR は使用できません: { $reason }
ui-menu-spring-bones = 揺れもの (リアルタイム)
    .tooltip = ポーズ編集中や再生中に髪やスカートが揺れます。静止画では常に揺れが収まった状態になります
ui-menu-onion-skin = オニオンスキン
    .tooltip = 前後のキーのポーズを半透明で表示します (静止画には写りません)
ui-menu-onion-shows = オニオンスキンの範囲
ui-menu-onion-keys = 前後のキー
ui-menu-onion-frames = ±{ $count } フレーム
ui-menu-language = 言語

# View menu: following the webcam (menu.rs camera_items).
ui-camera-follow = カメラに追従
    .tooltip = カメラに映った人の動きにアバターが追従します (鏡像)
ui-camera-unavailable = このシステムではカメラ追従はまだ使えません (Web カメラを読み込めるのは Linux のみです)。--camera-frames DIR を付けて起動すると、代わりにフォルダー内のフレームに追従できます。
ui-camera-none = カメラが見つかりません (/dev/video* デバイスがありません)。カメラを接続するか、--camera-frames DIR を付けて起動してフォルダー内のフレームに追従させてください。
ui-camera-capture = キーを記録
ui-camera-followed = { $count } フレーム追従しました

# Help menu (menu.rs).
ui-menu-controls = 操作方法

# Status line and error banner (src/app/ui/status.rs).
ui-status-dismiss = 閉じる
ui-status-cancel = キャンセル
ui-status-hint = マーカーをクリック: 選択 · 右ドラッグ: 視点回転 · 中ドラッグ / Shift+右ドラッグ: 視点移動 · ホイール: ズーム · F1: ヘルプ

# File ▸ Export PNG… window (src/app/ui/png_window.rs).
ui-png-title = PNG 書き出し
ui-png-about = アバターのみを、アンチエイリアスとストレートアルファ付きで書き出します。
ui-png-size = サイズ
ui-png-camera = カメラ
ui-png-current-view = 現在の視点
ui-png-transparent = 背景を透明にする
ui-png-every-key = 全キーを同じカメラで
    .tooltip = キーごとに連番の PNG (name_001.png, …) を、すべて同じ構図で書き出します
ui-png-export = 書き出し…
ui-png-export-film = アニメーションを書き出し…
    .tooltip = タイムライン全体を動画として書き出します。形式はファイル名で決まります（.webp・.png は背景が透明なループ、.gif、.mp4）


# Right panel: hands, gaze and expressions (src/app/ui/expressions.rs, hands.rs).
ui-hands = 手
ui-gaze = 視線
ui-expressions = 表情
ui-expressions-none = このモデルには表情がありません。
ui-side-left = 左
ui-side-right = 右
ui-side-both = 両方
ui-hands-copy-to-right = 右へコピー
ui-hands-copy-to-left = 左へコピー
ui-hands-fingers-left = 指 (左)
ui-hands-fingers-right = 指 (右)
ui-hands-finger-sliders = { $finger } (曲げ・開き)
ui-hands-thumb-sliders = { $finger } (曲げ・外側)
ui-gaze-no-eyes = このモデルには目が設定されていません。視線は書き出しには含まれます。
ui-gaze-off = オフ
ui-gaze-ahead = 正面
ui-gaze-camera = カメラ
ui-gaze-point = 注視点
ui-gaze-drag = ビューで視線ターゲットのハンドルをドラッグするか、値を入力:
ui-gaze-turned = 横 { $yaw }°、下 { $pitch }° (読み込み)


# Left panel: the inspector (src/app/ui/inspector.rs).
ui-inspector-untitled-model = 無題のモデル
ui-inspector-mannequin = 内蔵マネキン
ui-inspector-grip = 握り
ui-inspector-pin-feet = 足を固定
    .tooltip = 腰を動かしても足の位置を保ちます
ui-inspector-keep-angle = 手足の角度を保持
    .tooltip = IK で手や足のワールド回転を保ちます
ui-inspector-body-follows = 体が追従
    .tooltip = 届かない所まで手・足・頭をドラッグすると、背骨が傾き腰が動いて追いかけます。ピン留めした部位は動きません
ui-inspector-limits = 可動域
    .tooltip = 肘と膝は一方向にだけ曲がり、どの関節も人の可動域に収まります。デフォルメしたポーズではオフに
ui-inspector-pinned = ピン留め
    .tooltip = 体が動いてもこの手・足・頭をその場に留めます (P)
ui-inspector-selected = 選択中: { $bone }
ui-inspector-eyes = 目は視線 (LookAt) に従います。ボーンとしてポーズは付けません。
ui-inspector-reset-bone = ボーンをリセット
ui-inspector-bones = ボーン


# The inspector's bone groups.
ui-bone-group-torso = 胴体
ui-bone-group-head = 頭部
ui-bone-group-left-arm = 左腕
ui-bone-group-right-arm = 右腕
ui-bone-group-left-hand = 左手
ui-bone-group-right-hand = 右手
ui-bone-group-legs = 脚
