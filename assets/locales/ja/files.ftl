# files: Japanese

# File dialogs: the titles of the built-in dialog and of the native one
files-title-open-model = モデルを開く
files-title-load-pose = ポーズを読み込む
files-title-open-project = プロジェクトを開く
files-title-save-project-as = 名前を付けてプロジェクトを保存
files-title-import-animation = アニメーションを読み込む
files-title-pose-from-image = 画像からポーズを作成
files-title-import-video = 動画を読み込み
files-title-export = { $format }を書き出す
files-title-export-film = アニメーションを動画として書き出す

# File dialogs: the file type filters
files-filter-model = VRM モデル
files-filter-pose = ポーズ
files-filter-project = VRMA Maker プロジェクト
files-filter-animation = アニメーション (VRMA、glTF クリップ、BVH、FBX、VMD)
files-filter-photo = 写真 (PNG、JPEG)
files-filter-video = 動画 (MP4、MOV)
files-filter-vrma = VRM アニメーション
files-filter-bvh = BVH モーションキャプチャ
files-filter-glb = glTF バイナリ
files-filter-png = PNG 画像

# The built-in file dialog (desktops without a native one); its buttons
files-path-file = ファイル:
files-open = 開く
files-save = 保存
files-replace = 上書き
files-cancel = キャンセル
files-path-type-a-name = ファイル名を入力してください
files-path-folder-add-a-name = { $path } はフォルダーです。ファイル名を付け加えてください
files-path-no-file = { $path } にファイルがありません
files-path-no-folder = フォルダー { $path } がありません
files-path-is-a-folder = { $path } はフォルダーです
files-path-exists = { $name } はすでに存在します。上書きするには「上書き」を押してください。

# Status line and error banner: opening, saving, loading a pose
files-status-opened = { $path } を開きました
files-status-saved = { $path } を保存しました
files-save-failed = 保存できません: { $reason }
files-dialog-failed = ファイルダイアログでエラーが発生しました: { $reason }
files-pose-loaded = { $path } からポーズを読み込みました
files-pose-loaded-warnings = ポーズを読み込みました（警告: { $warnings }）

# Status line and error banner: File ▸ Export and File ▸ Import animation
files-rendering-png = PNG をレンダリングしています…
files-rendering-pngs = PNG を { $count } 枚レンダリングしています…
files-export-running = 書き出しはすでに実行中です
files-exporting = { $format } を書き出し中
files-exported = { $path } に書き出しました（{ $summary }）
files-no-keys-to-export = 書き出すキーがありません。K でキーを追加するか、「全キーを同じカメラで」のチェックを外してください
files-import-running = 読み込みはすでに実行中です
files-importing = { $path } を読み込んでいます…
files-imported = { $path } から { $keys } 個のキーを読み込みました
files-restored = { $path } から { $keys } 個のキーを復元しました
files-import-warnings = （警告: { $warnings }）
files-import-failed = 読み込めません: { $reason }
files-import-failed-at = { $path } を読み込めません: { $reason }

# The question before closing, quitting or opening over unsaved work
files-unsaved-title = 未保存の変更
files-unsaved-before-closing = 閉じる前に { $project } の変更を保存しますか？
files-unsaved-before-opening = { $name } を開く前に { $project } の変更を保存しますか？
files-dont-save = 保存しない
files-export-running-title = 書き出し中
files-export-running-question = 書き出しがまだ終わっていません。終わってから終了しますか？
files-quit-when-done = 終わったら終了
files-keep-working = 作業を続ける
files-quitting-after-export = 書き出しが終わったら終了します…

# The recovery offer at start, and autosave
files-recover-title = 未保存の作業を復元しますか？
files-recover-question = { $when }に自動保存された { $name } の未保存の作業（キー { $keys } 個）があります。復元しますか？
files-recover = 復元
files-recover-not-now = 今はしない（次回の起動時まで残す）
files-recover-just-now = 1 分以内
files-recover-minutes-ago = { $minutes } 分前
files-recover-hours-ago = { $hours } 時間前
files-recover-unsaved-project = 未保存のプロジェクト
files-recover-failed-kept = { $why } 未保存の作業は残してあります。モデルを見つけてから、もう一度復元してください。
files-autosave-failed = 自動保存に失敗しました: { $reason }

# File ▸ Pose from image: the status line and the landmark window
files-photo-running = 写真はすでに読み取り中です
files-photo-finding = { $path } からポーズを検出しています…
files-photo-read-failed = { $path } を読み取れませんでした: { $reason }
files-photo-models-unavailable = ポーズ認識モデルを使用できません
files-photo-posed = 写真からポーズを付けました: { $parts }。
files-photo-kept = はっきり写っていない部分は元のままです: { $parts }。
files-photo-title = { $name } からのポーズ
files-photo-key-used = 緑: 使用
files-photo-key-unclear = 灰: 不鮮明
files-photo-key-hands = 青: 手
files-photo-refine = ハンドルで調整できます。元に戻す（Ctrl+Z）でポーズ全体を元に戻せます。
files-photo-flip-hint = 手足の前後が逆になっていますか？ その線をクリックすると反転します。写真をクリックしてから Tab で手足を選び、F でも反転できます（Esc か写真の外にポインタを動かすとキーは元に戻ります）。
files-photo-picked = 選択中: { $bone }

# File ▸ Import video: its window
files-video-title = 動画を読み込み: { $name }
files-video-about = { $width }×{ $height }、{ $fps } fps、{ $seconds } 秒
files-video-from = 開始
files-video-to = 終了
files-video-mirror = 左右反転 (自撮り動画: アバターが鏡像のように動きます)
    .tooltip = ライブカメラと同じく左右を入れ替えます
files-video-import = { $time } 秒に読み込む
files-video-progress = フレーム { $done } / { $total } を読み込み中
files-video-goes-at = キーは { $time } 秒に入ります (取り消しは 1 回)。
files-video-cancel = キャンセル
files-video-running = 別の動画を読み込み中です
files-video-cancelled = 動画の読み込みをキャンセルしました: 何も変わっていません
files-video-failed = { $path } を読み込めませんでした: { $reason }
files-video-imported = { $path } から { $keys } 個のキーと { $plants } 個の接地区間を { $time } 秒に入れました
files-list-separator = 、

# The body parts the photo's summary names
files-part-torso = 胴体
files-part-head = 頭
files-part-left-arm = 左腕
files-part-right-arm = 右腕
files-part-left-leg = 左脚
files-part-right-leg = 右脚
files-part-left-fingers = 左手の指
files-part-right-fingers = 右手の指

# View ▸ Follow camera: its problem line in the View menu
files-camera-stopped = カメラの追従が予期せず停止しました
files-camera-cannot-start = 追従を開始できません: { $reason }
files-camera-check = { $reason }。カメラを確認して、「カメラに追従」をもう一度オンにしてください
files-camera-nothing-yet = まだキャプチャできるポーズがありません（誰も追従していません）
files-import-title = アニメーションの読み込み
files-import-source = { $seconds } 秒のモーション、{ $fps } fps、関節 { $joints } 個
files-import-keys = キー:
files-import-reduced = 必要なところだけ
files-import-every-frame = 全フレーム
files-import-tolerance = 許容差
files-import-range = 範囲
files-import-to = から
files-import-reading = 読み込み中…
files-import-result = { $seconds } 秒にキー { $keys } 個
files-import-preview = プレビュー
files-import-mapping = ボーン対応: ソースから { $mapped } ボーン、未使用の関節 { $unused } 個
files-import-none = (なし)
files-import-at-playhead = 再生位置に挿入 ({ $time } 秒)
files-import-replace = タイムラインを置き換え
files-import-ok = 読み込む
files-import-cancel = キャンセル
files-import-take = テイク:
files-import-longest = (最も長いもの)
