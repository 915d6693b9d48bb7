# The key map's words (src/app/session/keymap.rs): the F1 help's mouse actions and what
# each key does. Key names (Ctrl+Z, Left arrow) are not translated.

# The F1 help window's title (src/app/ui/help.rs).
keys-help-title = 操作方法

# F1 help: mouse and drag actions (keymap.rs MOUSE): the gesture, and what it does.
keys-mouse-select = マーカーを左クリック
    .does = そのボーンを選択
keys-mouse-gizmo = ギズモの矢印 / リングをドラッグ
    .does = その軸に沿って移動 / その軸まわりに回転
keys-mouse-orbit = 右ドラッグ
    .does = 視点を回転
keys-mouse-pan = 中ドラッグ / Shift + 右ドラッグ
    .does = 視点を移動 (パン)
keys-mouse-zoom = マウスホイール
    .does = ズーム
keys-mouse-timeline = タイムラインをクリック / ドラッグ
    .does = 再生位置を移動。キーをドラッグするとキーを移動します
keys-mouse-library = ライブラリのポーズをタイムラインへドラッグ
    .does = その位置のキーにポーズを入れます (元に戻す 1 回分)
keys-mouse-drop-model = ウィンドウに .vrm をドロップ
    .does = そのモデルを開きます (キーとポーズは引き継がれます)
keys-mouse-drop-json = プロジェクトまたはポーズの .json をドロップ
    .does = プロジェクトを開く / ポーズを適用

# F1 help: what each key does (keymap.rs KEYMAP), in the 3D view with a bone selected.
keys-view-front = 正面から見る
keys-view-back = 背面から見る
keys-view-right = 右から見る
keys-view-left = 左から見る
keys-view-top = 上から見る
keys-view-bottom = 下から見る
keys-frame-selection = 選択中のボーンを画面に収める
keys-frame-all = アバター全体を画面に収める
keys-look = 注視: 頭がポインターの方を向きます（首と胸も少し、目も）。クリックか Enter で確定
keys-move = 選択部位を移動: 手足は IK、ひじ・ひざは向きを振る (ポール)、腰は足を固定して移動
keys-pin = 選択した手・足・頭をその場にピン留め（もう一度 P で解除）：体が動いても留まります
keys-rotate = 選択中のボーンを視線方向の軸まわりに回転

# F1 help: during a move or rotation (G / R).
keys-lock-x = G・R の操作中: ワールドの X 軸に固定 (もう一度押すと解除)
keys-lock-y = G・R の操作中: ワールドの Y 軸に固定
keys-lock-z = G・R の操作中: ワールドの Z 軸に固定
keys-confirm = 移動・回転を確定 (元に戻す 1 回分)。左クリックでも確定します
keys-cancel = 取り消し: すべて元どおりに戻ります。右クリックでも取り消せます

# F1 help: anywhere in the window.
keys-add-key = 再生位置にキーを追加
keys-delete-key = 選択中のキー (なければ再生位置のキー) を削除
keys-select-all-keys = すべてのキーを選択
keys-copy = 選択中のキーをコピー (キーを選択していなければポーズをコピー)
keys-paste = キーを再生位置に貼り付け (間隔は保持)、またはポーズを「編集」メニューで選んだ部位に貼り付け
keys-paste-mirrored = 左右反転して貼り付け
keys-duplicate-keys = 選択中のキーを複製: クリックで置くまで複製がポインターに付いてきます
keys-play-stop = 再生 / 停止
keys-previous-frame = 前のフレーム
keys-next-frame = 次のフレーム
keys-undo = 元に戻す
keys-redo = やり直し
keys-save = プロジェクトを保存
keys-save-as = プロジェクトに名前を付けて保存…
keys-open-project = プロジェクトを開く
keys-quit = 終了 (未保存の変更があれば保存するか確認します)
keys-help = このヘルプの表示 / 非表示
