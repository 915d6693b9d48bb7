# library: Japanese

# The pose library window.
library-title = ポーズライブラリ
library-name-hint = 名前
library-save-pose = ポーズを保存
library-save-hand = 手だけ保存
# The hands in the Save hand menu, and the name of a hand saved without one.
library-import-folder = フォルダー読み込み…
library-export-folder = フォルダー書き出し…
library-empty = 保存したポーズはまだありません。
# Shown in place of a thumbnail that is still being drawn.
library-rendering = 描画中…

# A pose's context menu, and renaming it.
library-apply = 適用
library-rename-menu = 名前の変更…
library-overwrite = 現在のポーズで上書き保存
library-delete = 削除
library-rename = 名前を変更

# Notices and errors in the banner.
library-saved = 「{ $name }」をポーズライブラリに保存しました
library-renamed = 名前を変更しました
library-exported = { $count } 個のポーズを { $path } に書き出しました
library-imported = { $path } から { $count } 個のポーズを読み込みました
library-imported-skipped = { $path } から { $count } 個のポーズを読み込みました (スキップ: { $skipped })
library-warnings = ポーズライブラリ: { $warnings }
library-unavailable = ポーズライブラリを使えません: { $reason }

# The library on the VR panel.
library-vr-empty = ポーズライブラリ: まだ空です (デスクトップで保存できます)
library-vr-page = ポーズライブラリ · { $page } / { $pages } ページ
