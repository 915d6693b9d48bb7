# app: Japanese

# The title bar and the unsaved-changes question: a project or model without a name
app-untitled = 無題
app-untitled-model = 無題のモデル

# Status line and error banner: opening a model, a project or recovered work
app-the-mannequin = マネキン
app-opening-reading = { $name } を開いています: 読み込みと確認中…
app-opening-uploading = { $name } を開いています: テクスチャのデコードとメッシュの転送中…
app-opened-with-warnings = 開きました（警告: { $warnings }）
app-open-failed = { $path } を開けません: { $reason }
app-open-project-failed = プロジェクトを開けません: { $reason }
app-recover-failed = 復元できません: { $reason }
app-recovery-file-gone = 復元用のファイルが見つかりません
app-display-failed = モデルを表示できません: { $reason }
app-part-not-loaded = モデルの一部を読み込めませんでした: { $reason }
app-gpu-error = 描画中に GPU がエラーを報告しました: { $error }。作業内容は保持されています。
app-gpu-cannot-draw = このモデルはこの GPU では描画できません（{ $error }）。前のモデルに戻しました。作業内容は保持されています。

# Status line and error banner: File ▸ Export PNG (render-png prints them in English)
app-still-too-big = { $width }×{ $height } の画像は、この GPU で描画できる大きさ（一辺 { $side } ピクセル）を超えています。小さいサイズを選んでください
app-still-timed-out = { $path } のレンダリングがタイムアウトしました
app-still-not-reduced = 画像を縮小できませんでした
app-still-saved = { $path } を保存しました
app-png-encode-failed = PNG をエンコードできません: { $reason }
app-png-write-failed = { $path } に書き込めません: { $reason }

# Error banner: work on a worker thread that failed
app-work-stopped = 処理が予期せず停止しました
app-worker-cannot-start = 作業用スレッドを開始できません: { $reason }

# The message box when no graphics device starts (the console's line stays English)
app-no-device = グラフィックスデバイスを起動できませんでした（試したもの: { $tried }）。{ $advice }
app-no-device-advice-windows = グラフィックスドライバーを更新してから（Windows Update、または AMD・Intel・NVIDIA から）、VRMA Maker をもう一度起動してください。
app-no-device-advice-macos = macOS を更新してから、VRMA Maker をもう一度起動してください。
app-no-device-advice-linux = Mesa の Vulkan ドライバーをインストールしてから（Debian/Ubuntu: sudo apt-get install mesa-vulkan-drivers libvulkan1）、もう一度起動してください。
app-film-rendering = アニメーションを書き出し中
app-film-cancelled = アニメーションの書き出しを取り消しました（ファイルは作られていません）
app-film-stopped = アニメーションの書き出しが止まりました: 2 分間レンダラーからフレームが届きませんでした
