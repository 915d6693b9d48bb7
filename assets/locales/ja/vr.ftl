# vr: Japanese

# Why VR cannot start (the status line, and View ▸ Enter VR's hover text).
vr-unavailable-staying = VR を使用できません: { $reason }。デスクトップ表示のまま続けます。
vr-unavailable-no-xr-build = このビルドは VR に対応していません。`cargo build --release --features xr` でビルドしてください
vr-no-loader = OpenXR ローダー (libopenxr_loader.so) がインストールされていません（{ $error }）。Debian/Ubuntu では sudo apt-get install libopenxr-loader1 libopenxr-dev でインストールできます
vr-no-runtime-windows = 有効な OpenXR ランタイムがありません（{ $error }）。Meta Quest Link（Meta Quest Link アプリの 設定 > 一般 > OpenXR ランタイム で「Meta Quest Link をアクティブに設定」）または SteamVR を起動してから、もう一度お試しください
vr-no-runtime = 有効な OpenXR ランタイムがありません（{ $error }）。SteamVR、Meta Quest Link、Monado、WiVRn のいずれかを起動するか、XR_RUNTIME_JSON でランタイムを指定してください
vr-runtime-did-not-start = OpenXR ランタイムはありますが、起動できませんでした（ヘッドセットが接続されていないか、使用できる Vulkan デバイスがありません。詳しくはログを確認してください）
vr-controllers-failed = VR コントローラーを設定できません: { $error }

# Controller button names the OpenXR runtime shows in its binding settings.
vr-action-a = A: キーを追加
vr-action-b = B: 元に戻す
vr-action-x = X: 再生/停止
vr-action-y = Y: やり直し

# The in-headset panel's title row (fixed-size buttons: keep them short) and help line.
vr-panel-export = VRMA を書き出し
vr-panel-turn-snap = 回転: 30° 刻み
vr-panel-turn-smooth = 回転: なめらか
vr-panel-hold = 手に持つ
vr-panel-pin = ここに固定
vr-panel-help = トリガー/指先: 押す · ポーズをルーラーへドラッグでキー登録 · A キー追加 · B 元に戻す · Y やり直し · X 再生 · 左スティック: 回転・移動・長押しで位置リセット · 両グリップ: 拡大縮小 · 右スティック押し込み: 手のプリセット

# The hand-preset menu on the left hand (small round buttons: keep them short).
# Its middle button: which of the avatar's hands the presets shape.
vr-hand-both = 両手
vr-hand-left = 左手
vr-hand-right = 右手
