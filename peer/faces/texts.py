"""Everything a player reads, in English and Japanese."""
import locale
import os

from ..reasons import PROBLEMS, REASONS

TEXTS = {
    "waiting_join": ("Waiting for {other} to join the board {board} ...",
                     "{other}が伝言台 {board}に来るのを待っています…"),
    "waiting_hello": ("{other} has joined; waiting for its greeting ...",
                      "{other}が来ました。あいさつを待っています…"),
    "game_on": ("Game on: {black} (black {bd}) vs {white} (white {wd}) on {shape}.",
                "対局開始: {black}（黒 {bd}）対 {white}（白 {wd}）、{shape}"),
    "classic": ("{other} speaks the classic protocol (bare coordinates only): classic mode.",
                "{other}は昔ながらの座標だけの通信です。クラシックモードで対局します。"),
    "resume": ("Resuming game {id} at move {n} ({shape}, {colour}: {name}); the game comes from the "
               "board's record.",
               "対局 {id}を {n} 手目から再開します（{shape}、{colour}: {name}）。盤と相手は"
               "伝言台の棋譜のとおりです。"),
    "unfinished_game": ("An unfinished game is on this board: {id}, {shape}, {black} (black) vs {white} "
                        "(white), next move {n}. {option} {want} would start another game: start without {option} "
                        "to resume this one, or with --new to close it (abandoned) and start a new game.",
                        "この伝言台には終わっていない対局があります: {id}（{shape}、黒 {black} 対 白 {white}、"
                        "次は {n} 手目）。{option} {want}では別の対局になってしまいます。続きを打つには {option} を"
                        "付けずに起動し、この対局をやめて新しく始めるには --new を付けてください。"),
    "abandoned_mine": ("Game {id} ({size}x{size}, next move {n}) is closed as abandoned; a new game starts.",
                       "対局 {id}（{size}×{size}、次は {n} 手目）を放棄として閉じ、新しい対局を始めます。"),
    "abandoned_theirs": ("{colour} started a new game: game {id} ({size}x{size}, next move {n}) is closed as "
                         "abandoned.",
                         "{colour}が新しい対局を始めました。対局 {id}（{size}×{size}、次は {n} 手目）は放棄として"
                         "閉じました。"),
    "record_lost": ("The record of game {id} is gone from the board (deleted while nobody played?): the game "
                    "goes on under its id with the moves the other side still has, else from the start.",
                    "対局 {id}の棋譜が伝言台から消えています（誰もいない間に削除された？）。同じ対局として、相手の"
                    "手元に残っている手から、なければ最初から続けます。"),
    "unfinished_elsewhere": ("Game {id} ({black} vs {white}, next move {n}) is unfinished on this board, but "
                             "records/current names {current}: resuming game {id}.",
                             "この伝言台には未完了の対局 {id}（{black} 対 {white}、次は {n} 手目）がありますが、"
                             "最新の対局として記録されているのは {current} です。対局 {id}を再開します。"),
    "classic_move_lost": ("{other} sent '{move}' to an earlier run of this side, before this one started; a new "
                          "run never reads those (PROTOCOL.md I2), and a classic program sends its move only once: "
                          "start {other} again and the game begins.",
                          "{other}は、こちらが起動する前に前の実行へ「{move}」を送りました。新しい実行はそれを読みません"
                          "（PROTOCOL.md I2）。クラシックのプログラムは手を一度しか送らないので、{other}を起動し直すと"
                          "対局が始まります。"),
    "classic_move_lost_leave": ("{other} was not started again within {secs} s, and its move was lost: leaving. "
                                "Start both again, this side first.",
                                "{other}が {secs} 秒以内に起動し直されず、その手は失われたままなので終了します。"
                                "両方を起動し直してください（こちらを先に）。"),
    "classic_silent": ("{other} joined {secs} s ago and has sent nothing. If it is a classic program (no "
                       "greeting), its first move may have gone to an earlier run of this side, which a new run "
                       "never reads: start {other} again.",
                       "{other}は {secs} 秒前に参加しましたが、何も届いていません。クラシックのプログラム（挨拶なし）なら、"
                       "最初の手はこちらの前の実行に送られ、新しい実行では読まれません。{other}を起動し直してください。"),
    "no_alive_record": ("{colour}'s member record names this computer and a process that runs, but no alive "
                        "record names its run: it closed, or it is a program that keeps no alive record and must "
                        "then leave machine empty in its member record (PROTOCOL.md I1a). It is taken as gone.",
                        "{colour}のメンバー記録はこのコンピューターと動いているプロセスを指していますが、その実行を指す alive "
                        "記録がありません。終了したか、alive 記録を書かないプログラムです。その場合はメンバー記録の machine を"
                        "空にします（PROTOCOL.md I1a）。いないものとして扱います。"),
    "classic_board": (REASONS["classic_board"],
                      "{other}は挨拶をしないので、クラシックのプロトコルで対局することになりますが、それは普通の 8×8 の盤"
                      "しか知りません。この対局は {shape}です（それと対局するには --size と --shape を付けずに起動してください）"),
    "classic_new_game": ("{colour} started again. A classic program keeps no record, so it plays a new game: "
                         "game {id} (next move {n}) is closed as abandoned and a new game begins.",
                         "{colour}が起動し直しました。クラシックのプログラムは棋譜を残さないので新しい対局を始めます。"
                         "対局 {id}（次は {n} 手目）は放棄として閉じ、新しい対局を始めます。"),
    "new_game_asked": ("{colour} asked for a new game (--new).", "{colour}が新しい対局を求めています（--new）。"),
    "game_closed": ("game '{id}' was closed ({status}) on this board and is not resumed: start black with --new",
                    "対局 '{id}' はこの伝言台で閉じられている（{status}）ので再開しません。黒を --new で"
                    "起動してください"),
    "renamed_me": ("Your name in this game is now {name} (it was {old}).",
                   "この対局でのあなたの名前は {name}になりました（前は {old}）。"),
    "renamed_them": ("{colour} is now called {name} (it was {old}).", "{colour}の名前が {name}になりました（前は {old}）。"),
    "resigned_text": ("{colour} resigned", "{colour}の投了"),
    "abandoned_by": ("by {colour}", "{colour}による"),
    "refused_because": ("refused: {reason}", "拒否: {reason}"),
    "pass": ("pass", "パス"),
    "score_text": ("black {b} - white {w}", "黒 {b} - 白 {w}"),
    "offer_end": ("Game {id} has ended ({result}), but {other} has not confirmed the end yet: offering the "
                  "game again so that {other} sees it.",
                  "対局 {id}は終わっています（{result}）が、{other}がまだ終局を確認していません。"
                  "{other}に終局を伝えるため、この対局をもう一度提示します。"),
    "ended_resigned": ("Game {id} has ended: {result}.", "対局 {id}は終わっています: {result}。"),
    "waiting_ack": ("Waiting for {name} to confirm the end of the game ... ({to_leave}: the end is "
                    "offered again next time)",
                    "{name}が終局を確認するのを待っています…（{to_leave}。次に起動したとき、"
                    "もう一度終局を伝えます）"),
    "no_ack": ("{name} did not confirm the end within {secs} s: the game will be offered again the next time "
               "this side starts.",
               "{name}が {secs} 秒以内に終局を確認しませんでした。次にこちらを起動したとき、この対局をもう一度"
               "提示します。"),
    "already_over": ("The game is over.", "対局はもう終わっています。"),
    "classic_not_told": ("{other} is a classic program: it cannot be told.",
                         "{other}は昔ながらのプログラムなので、これは伝わりません。"),
    "your_turn": ("Your move ({colour}). Type a square like d3, or 'help'.",
                  "あなたの番です（{colour}）。d3 のように打つ場所を入力してください（help で説明）。"),
    "played": ("{name} played {move}.", "{name}は {move}に打ちました。"),
    "you_played": ("You played {move}.", "あなたは {move}に打ちました。"),
    "you_pass": ("You have no legal move: you pass.", "打てる場所がないので、あなたはパスします。"),
    "they_pass": ("{name} has no legal move and passes.", "{name}は打てる場所がないのでパスします。"),
    "not_your_turn": ("It is not your turn: wait for {name}.", "今はあなたの番ではありません。{name}を待ってください。"),
    "bad_move": ("{reason}. Legal moves: {legal}", "{reason}。打てる場所: {legal}"),
    "move_reason": ("{move}: {reason}", "{move}: {reason}"),
    "unknown": ("Unknown command '{cmd}'. Type 'help' for the commands.",
                "'{cmd}' はわからないコマンドです。help でコマンドの一覧を表示します。"),
    "help": ("Commands: d3 (a square) moves; hint; say TEXT (chat); board; moves (and the time used); "
             "resign (asks first); quit (you can come back); help.",
             "コマンド: d3（マス）で着手、ヒント（hint）、発言 文（say、チャット）、盤面（board）、"
             "棋譜（moves、使った時間も）、投了（resign、確認あり）、終了（quit、あとで再開）、ヘルプ（help）。"),
    "help_computer": ("The computer plays this side. Commands: say TEXT (chat); board; moves (and the time "
                      "used); quit (you can come back); help.",
                      "この側はコンピューターが打ちます。コマンド: 発言 文（say、チャット）、盤面（board）、"
                      "棋譜（moves、使った時間も）、終了（quit、あとで再開）、ヘルプ（help）。"),
    "moves_list": ("Time used: black {b}, white {w}. Moves, the last first: {moves}.",
                   "使った時間: 黒 {b}、白 {w}。棋譜（新しい順）: {moves}。"),
    "computer_plays": ("The computer plays this side: type 'say TEXT', 'board' or 'quit' (or 'help').",
                       "この側はコンピューターが打ちます。使えるのは 発言 文（say）、盤面（board）、終了（quit）、"
                       "ヘルプ（help）です。"),
    "not_started": ("The game has not started yet: waiting for {other}.", "対局はまだ始まっていません。{other}を待っています。"),
    "say_what": ("Type the text after 'say', like: say good luck", "発言（say）のあとに文を続けてください。例: 発言 よろしく"),
    "no_undo": ("Moves cannot be taken back in a game between two programs: the other side has already seen yours.",
                "二つのプログラムでの対局では待ったはできません（相手はもうその手を受け取っています）。"),
    "resign_answer": ("'{cmd}' is not an answer: type 'yes' to resign, 'no' to go on playing.",
                      "「{cmd}」は答えになっていません。投了するなら はい、続けるなら いいえ と入力してください。"),
    "nothing_to_answer": ("'{cmd}': there is no question to answer.", "「{cmd}」: 答える質問はありません。"),
    "resign_sure": ("Resign this game? Type 'yes' (or 'resign' again) to resign, 'no' to go on playing.",
                    "本当に投了しますか？ 投了するなら はい（または もう一度 投了）、続けるなら いいえ と入力して"
                    "ください。"),
    "resign_cancelled": ("Not resigned: the game goes on.", "投了を取り消しました。対局を続けます。"),
    "to_leave_human": ("type 'quit' to leave", "やめるときは 終了（quit）"),
    "to_leave_computer": ("press Ctrl+C to leave", "やめるときは Ctrl+C"),
    "to_leave_terminal": ("type 'quit' or press Ctrl+C to leave", "やめるときは 終了（quit）か Ctrl+C"),
    "hint": ("Hint: {moves} (discs ahead at the end with best play{estimate})",
             "ヒント: {moves}（最善を尽くしたときの最終石差{estimate}）"),
    "hint_estimate": ("; ~: an estimate, not solved to the end", "。~ は読み切っていない見込み"),
    "chat": ("{name} says: {text}", "{name}: {text}"),
    "say_too_long": ("Not sent: that is {n} characters; a chat line holds at most {limit}.",
                     "送信しませんでした: {n} 文字あります。1回に送れるのは {limit} 文字までです。"),
    "sent_chat": ("(sent)", "（送信しました）"),
    "gone": ("{name} shows no sign of life for {secs} s (killed, or the share is gone?). "
             "Waiting; {to_leave}.",
             "{name}から {secs} 秒以上応答がありません（終了したか、共有フォルダが切れた？）。"
             "待っています。{to_leave}。"),
    "silent": ("{name} has not moved for {secs} s and keeps no sign of life on the board (a program without a "
               "heartbeat), so whether it is thinking or has stopped cannot be told. Waiting; {to_leave}.",
               "{name}は {secs} 秒指していません。伝言台に生存の合図を書かないプログラムなので、考え中か止まったかは"
               "分かりません。待っています。{to_leave}。"),
    "back": ("{name} is back.", "{name}が戻りました。"),
    "left": ("{name} left the game. Waiting for them to come back; {to_leave}.",
             "{name}が対局を中断しました。戻るのを待っています。{to_leave}。"),
    "giving_up_wait": ("{name} did not come back within {secs} s: leaving.",
                       "{name}が {secs} 秒以内に戻らなかったので終了します。"),
    "they_resigned": ("{name} resigned.", "{name}が投了しました。"),
    "you_resigned": ("You resigned.", "投了しました。"),
    "over": ("Game over: black {b} - white {w}. {verdict}", "対局終了: 黒 {b} - 白 {w}。{verdict}"),
    "over_resigned": ("Game over: {result} (black {b} - white {w} on the board). {verdict}",
                      "対局終了: {result}（盤上は 黒 {b} - 白 {w}）。{verdict}"),
    "win": ("{name} wins.", "{name}の勝ち。"),
    "draw": ("A draw.", "引き分け。"),
    "they_refused": ("{name} refused {move}: {reason}", "{name}が {move}を拒否しました: {reason}"),
    "refused_theirs": ("{name} sent '{move}', refused: {reason}", "{name}から '{move}' が届きましたが拒否しました: {reason}"),
    "cannot_play": ("Cannot play: {reason}", "対局できません: {reason}"),
    "send_retry": ("Could not send ({reason}); trying again, less and less often ({to_leave}) ...",
                   "送信できませんでした（{reason}）。間隔をあけながら再試行します（{to_leave}）…"),
    "send_full": ("The disk of the board folder {board} is full: nothing can be sent until space is freed. "
                  "Trying again, less and less often ({to_leave}) ...",
                  "伝言台のフォルダ {board}のディスクがいっぱいです。空きができるまで送信できません。"
                  "間隔をあけながら再試行します（{to_leave}）…"),
    "disk_full": ("The disk of the board folder {board} is full: neither side can write on the board until space "
                  "is freed, so {name} cannot move. Waiting ({to_leave}) ...",
                  "伝言台のフォルダ {board}のディスクがいっぱいです。空きができるまでどちらも書き込めないので、"
                  "{name}も打てません。待っています（{to_leave}）…"),
    "sent_again": ("Sent.", "送信できました。"),
    "full_leave": ("The board's disk stayed full for {secs} s: leaving. The game so far ({id}): {moves}",
                   "伝言台のディスクが {secs} 秒間いっぱいのままだったので終了します。ここまでの棋譜（{id}）: {moves}"),
    "send_leave": ("Nothing could be sent for {secs} s ({reason}): leaving. The game so far ({id}): {moves}",
                   "{secs} 秒間送信できなかったので終了します（{reason}）。ここまでの棋譜（{id}）: {moves}"),
    "board_gone": ("The board folder {board} is gone (deleted, moved, or a share no longer mounted). The game "
                   "is kept here; waiting for the folder to come back ({to_leave}) ...",
                   "伝言台のフォルダ {board}が見つかりません（削除・移動されたか、共有が切断された？）。対局は"
                   "ここに保持しています。フォルダが戻るのを待っています（{to_leave}）…"),
    "board_back": ("The board folder {board} is back: the game goes on.",
                   "伝言台のフォルダ {board}が戻りました。対局を続けます。"),
    "board_gone_leave": ("The board folder did not come back within {secs} s: leaving. The game so far ({id}): "
                         "{moves}",
                         "伝言台のフォルダが {secs} 秒以内に戻らなかったので終了します。ここまでの棋譜（{id}）: {moves}"),
    "board_disconnected": ("The share holding the board folder {board} is disconnected or stale (its server, or the "
                           "program that mounted it, went away). The game is kept here; waiting for the share to "
                           "come back ({to_leave}) ...",
                           "伝言台のフォルダ {board}のある共有が切断されたか無効になりました（サーバーかマウントした"
                           "プログラムが止まった？）。対局はここに保持しています。共有が戻るのを待っています"
                           "（{to_leave}）…"),
    "board_swapped": ("The folder {board} is not the board this game started on: it was swapped or replaced. "
                      "Nothing is written there; the game is kept here, waiting for its board to come back "
                      "({to_leave}) ...",
                      "フォルダ {board}はこの対局を始めた伝言台ではありません（入れ替えられたか、置き換えられた）。"
                      "そこには何も書き込みません。対局はここに保持して、元の伝言台が戻るのを待っています"
                      "（{to_leave}）…"),
    "board_swapped_leave": ("The board of this game did not come back to {board} within {secs} s: leaving. The "
                            "game so far ({id}): {moves}. Its record is in its own board folder, wherever that "
                            "is now: start again there to resume it.",
                            "この対局の伝言台が {secs} 秒以内に {board}に戻らなかったので終了します。ここまでの棋譜"
                            "（{id}）: {moves}。棋譜は元の伝言台のフォルダ（今どこにあっても）にあります。続きは"
                            "そのフォルダで起動し直してください。"),
    "cause_readonly": ("The board folder {board} is read-only now (its disk or share was made read-only).",
                       "伝言台のフォルダ {board}が読み取り専用になりました（ディスクか共有が読み取り専用にされた）。"),
    "cause_denied": ("Writing in the board folder {board} is no longer permitted (its owner or permissions "
                     "changed).",
                     "伝言台のフォルダ {board}に書き込む権限がなくなりました（所有者かアクセス権が変わった）。"),
    "cause_io": ("The disk or share of the board folder {board} reports input/output errors.",
                 "伝言台のフォルダ {board}のディスクか共有が入出力エラーを返しています。"),
    "send_blocked": ("{cause} Nothing can be sent until that is fixed. Trying again, less and less often "
                     "({to_leave}) ...",
                     "{cause}直るまで送信できません。間隔をあけながら再試行します（{to_leave}）…"),
    "board_unwritable": ("{cause} Neither side can write on the board until that is fixed, so the game cannot go "
                         "on. Waiting ({to_leave}) ...",
                         "{cause}直るまでどちらも伝言台に書き込めないので、対局を進められません。待っています"
                         "（{to_leave}）…"),
    "unwritable_leave": ("Nothing could be written on the board for {secs} s: leaving. {cause} The game so far "
                         "({id}): {moves}",
                         "{secs} 秒間伝言台に書き込めなかったので終了します。{cause}ここまでの棋譜（{id}）: {moves}"),
    "busy": ("{colour} is already playing on this board: pid {pid} on {host}{machine}; {seen}. Only one program "
             "may play {colour} at a time. If that program is truly gone (its computer frozen, or cut off from the "
             "share), start again with --take-over.",
             "{colour}はすでにこの伝言台で対局中です（{host}の pid {pid}{machine}、{seen}）。同じ色で対局できる"
             "プログラムは一つだけです。そのプログラムが本当に止まっている（コンピューターが固まった、共有から切れた）"
             "なら、--take-over を付けて起動し直してください。"),
    "busy_here": ("its process runs on this computer", "このコンピューターでプロセスが動いています"),
    "busy_seen": ("last sign of life {secs} s ago", "最後の応答は {secs} 秒前"),
    "busy_machine": (", machine {m}", "、マシン {m}"),
    "replaced": ("Another run of {colour} has joined this board and taken over (pid {pid} on {host}): this one "
                 "stops and sends nothing more.",
                 "別の{colour}のプログラム（{host}の pid {pid}）がこの伝言台に参加して引き継ぎました。こちらは何も"
                 "送らずに終了します。"),
    "name_too_long": (PROBLEMS["name_too_long"], "--name が {n} 文字あります。名前は {limit} 文字までです"),
    "bye": ("You left the game; start the same command again to resume.",
            "対局を中断しました。同じコマンドで再開できます。"),
    "demo_player_failed": ("The {colour} player stopped with exit code {code}: {said}",
                           "{colour}のプレイヤーが終了コード {code} で止まりました: {said}"),
    "record": ("Game record: {path}", "棋譜: {path}"),
    "record_failed_cause": ("The game record could not be saved (the game goes on; it cannot be resumed from this "
                            "board): {cause}",
                            "棋譜を保存できませんでした（対局は続きますが、この伝言台からは再開できません）：{cause}"),
    "record_failed": ("The game record could not be saved (the game goes on; it cannot be resumed "
                      "from this board): {reason}",
                      "棋譜を保存できませんでした（対局は続きますが、この伝言台からは再開できません）：{reason}"),
    "engine_failed": ("The external engine failed ({reason}); playing {move} instead.",
                      "外部エンジンが失敗しました（{reason}）。代わりに {move}に打ちます。"),
    "ai_failed": ("Your AI failed ({reason}); the greedy player plays {move} instead.",
                  "自作のコンピューターが失敗しました（{reason}）。代わりに「貪欲」が {move}に打ちます。"),
    "thinking": ("thinking", "考慮中"),
    "waiting": ("waiting", "待機中"),
    "gone_state": ("gone?", "応答なし"),
    # -- the live screen (peer.faces.live) --------------------------------------------------------
    "kind_human": ("person", "人間"),
    "kind_computer": ("computer", "コンピューター"),
    "you": ("you", "あなた"),
    "live_thinking": ("thinking {secs} s", "考慮中 {secs} 秒"),
    "live_thinking_now": ("thinking", "考慮中"),
    "live_waiting_now": ("waiting", "待機中"),
    "live_gone": ("no sign of life for {secs} s", "{secs} 秒応答なし"),
    "live_gone_now": ("no sign of life", "応答なし"),
    "live_left": ("left the game {secs} s ago", "中断中（{secs} 秒前から）"),
    "live_left_now": ("left the game", "中断中"),
    "live_absent_now": ("not on the board yet", "まだ来ていません"),
    "live_used": ("used {t}", "消費 {t}"),
    "time_used": ("Time used: black {b}, white {w}", "消費時間: 黒 {b}、白 {w}"),
    "live_left_time": (", {t} left", "、残り {t}"),
    "live_per_move": (", {secs} s a move", "、1手 {secs} 秒"),
    "live_turn": ("Move {n}: {colour} to play", "{n} 手目: {colour}の番"),
    "live_over": ("Game over: {result}", "対局終了: {result}"),
    "live_last": ("Last move: {move}", "直前の手: {move}"),
    "live_not_started": ("The game has not started yet.", "対局はまだ始まっていません。"),
    "live_too_small": ("The terminal is too small for the board: make it at least {columns} columns wide and "
                       "{rows} lines high.",
                       "端末が小さすぎて盤が入りません。幅 {columns} 桁、高さ {rows} 行以上に広げてください。"),
    "live_watching_keys": (" watching · q or Ctrl+C leaves", " 観戦中 · q か Ctrl+C で終了"),
    "not_installed": ("{program}: this Python ({python}) has no {modules}, which the game needs. Activate the "
                      "project's environment first ({activate}; on Windows {activate_windows}), or install the "
                      "project into this Python: {install}",
                      "{program}: この Python（{python}）には対局に必要な {modules} がありません。先にプロジェクトの"
                      "環境を有効にするか（{activate}、Windows では {activate_windows}）、この Python にプロジェクトを"
                      "インストールしてください: {install}"),
    "live_keys": (" d3 to move · help · Ctrl+C leaves", " d3 で着手 · ヘルプ（help） · Ctrl+C で中断"),
    "live_keys_computer": (" the computer plays · say TEXT · help · Ctrl+C leaves",
                           " コンピューターが対局中 · 発言 文 · ヘルプ（help） · Ctrl+C で中断"),
    "leaving": ("Leaving ... (Ctrl+C again to leave at once, without telling the opponent)",
                "中断しています…（もう一度 Ctrl+C で、相手に知らせずにすぐ終了）"),
    "tag_sep": (", ", "、"),
    "tags": (" ({tags})", "（{tags}）"),
    "black": ("black", "黒"),
    "white": ("white", "白"),
    "discs": ("black {bd} {b}   white {wd} {w}", "黒 {bd} {b}   白 {wd} {w}"),
    "turn_line": ("{colour} to move", "{colour}の番"),
    "illegal_must_move": ("you cannot pass: there is a legal move", "打てる場所があるのでパスできません"),
    "illegal_taken": ("{square} is already taken", "{square}にはもう石があります"),
    "illegal_hole": ("{square} is a hole: not part of this board", "{square}は穴なので打てません"),
    "illegal_flips_nothing": ("{square} flips nothing", "{square}では相手の石を1つも返せません"),
    "illegal_game_over": ("the game is over", "対局は終わっています"),
    "illegal_off_board": ("{square} is off the {size}x{size} board (a1..{last})",
                          "{square}は {size}×{size}の盤の外です（a1～{last}）"),
    "illegal_not_a_square": ("not a square (a column letter and a row number, like d3)",
                             "マスの指定ではありません（d3 のように列の文字と行の数字で）"),
    "missing": (REASONS["missing"],
                "{expected} 手目のはずが {n} 手目が届きました"),
    "out_of_turn": (REASONS["out_of_turn"],
                    "手番ではありません"),
    "status_playing": ("playing", "対局中"),
    "status_over": ("over", "終局"),
    "status_resigned": ("resigned", "投了"),
    "status_abandoned": ("abandoned", "放棄"),
    "status_refused": ("refused", "拒否"),
    "watching": ("Watching {board} (Ctrl-C to stop) ...", "{board}を観戦しています（Ctrl-C で終了）…"),
    "no_board": ("There is no board at {board} (no folder, or no cardstand.board in it): check the path, or "
                 "start a player there first.",
                 "{board}に伝言台がありません（フォルダがないか、中に cardstand.board がありません）。場所を確かめるか、"
                 "先にそこで対局を始めてください。"),
    "replay_prompt": ("move {n} of {last} [Enter next, b back, number, q] ", "{last}手中 {n}手目［Enter 次、b 戻る、数字、q 終了］ "),
    "replay_keys": ("Enter: the next move; b: back one; a number: that move; q: stop.",
                    "Enter: 次の手、b: 1手戻る、数字: その手まで、q: 終了。"),
    "no_file": ("There is no file {file}: check the path (a game record is BOARD/records/<id>.game).",
                "{file}というファイルはありません。場所を確かめてください（棋譜は 伝言台のフォルダの records の中です）。"),
    "cannot_replay": ("Cannot replay {file}: {reason}", "{file}を再生できません: {reason}"),
    "no_game": ("No game on this board yet.", "この伝言台にはまだ対局がありません。"),
    "watched_end": ("The game ended: {result}.", "対局が終わりました: {result}。"),
    # -- a board folder that others can write ------------------------------------
    "other_run": ("'{what}' from another run of {colour}, not the one that joined this game, was ignored.",
                  "この対局に参加した{colour}とは別の実行（run）から '{what}' が届きましたが、無視しました。"),
    "set_aside": ("Something on the board that this program cannot use was moved to trash/: {path} ({reason})",
                  "伝言台にあった使えないものを trash/ に移しました: {path}（{reason}）"),
    "set_aside_more": ("{n} more moved to trash/: things on the board that this program cannot use (look "
                       "there to see them).",
                       "ほかにも使えないものを {n} 件 trash/ に移しました（trash/ の中で見られます）。"),
    "aside_refused": ("a message that fails the shared secret's check: {detail}",
                      "共有秘密鍵の検査に通らないメッセージ: {detail}"),
    "aside_damaged": ("damaged: {detail}", "壊れています: {detail}"),
    "aside_not_message": ("not a message: {detail}", "メッセージではありません: {detail}"),
    "aside_not_file": ("not a file: {detail}", "ファイルではありません: {detail}"),
    "aside_not_folder": ("not a folder: {detail}", "フォルダーではありません: {detail}"),
    "noise_more": ("{n} more lines from the board were not shown in the last minute: refused or ignored "
                   "messages, or chat (too many to show; the game goes on).",
                   "この1分間に伝言台から届いたほか {n} 件（拒否・無視したメッセージ、チャット）は多すぎるので表示しませんでした"
                   "（対局は続いています）。"),
    "mac_refused": ("A message claiming to be from {name} was refused: {reason}",
                    "{name}からと称するメッセージを拒否しました: {reason}"),
    "no_secret_there": (REASONS["no_secret_there"],
                        "{other}は共有秘密鍵なしで対局しています。両方に同じ CARDSTAND_SECRET か "
                        "--secret-file を指定してください"),
    "no_secret_here": (REASONS["no_secret_here"],
                       "{other}は共有秘密鍵を使っていますが、こちらにはありません。両方に同じ "
                       "CARDSTAND_SECRET か --secret-file を指定してください"),
    "other_secret": (REASONS["other_secret"],
                     "{other}は別の共有秘密鍵を使っています（メッセージの MAC が合いません）。両方に同じ "
                     "CARDSTAND_SECRET か --secret-file を指定してください"),
    "secret_problem": ("Cannot use the shared secret: {reason}", "共有秘密鍵を使えません: {reason}"),
    "bad_game_id": (REASONS["bad_game_id"],
                    "対局 ID '{id}' が不正です（A-Z a-z 0-9 . _ - の 1～64 文字で、'.' で始まらないこと）"),
    "bad_size": (REASONS["bad_size"],
                 "盤の大きさ '{size}' が不正です"),
    "bad_moves": (REASONS["bad_moves"],
                  "手順 '{moves}' を再現できません: {reason}"),
    "bad_version": (REASONS["bad_version"],
                    "プロトコルのバージョン {v}には対応していません（このプログラムは {mine}）"),
    "size_wanted": (REASONS["size_wanted"],
                    "白は {theirs}×{theirs}の盤を希望、黒の提案は {mine}×{mine}です"),
    "size_proposed": (REASONS["size_proposed"],
                      "黒の提案は {theirs}×{theirs}の盤、白の希望は {mine}×{mine}です"),
    # -- why a player cannot start, why a game record is not used (peer.reasons.PROBLEMS) -----------
    "threads_not_ai": (PROBLEMS["threads_not_ai"],
                       "--threads と --ponder は --ai best のためのものです（人間や --engine には使えません）"),
    "threads_not_best": (PROBLEMS["threads_not_best"],
                         "--threads と --ponder は --ai best のためのものです（{name}には使えません）"),
    "time_twice": (PROBLEMS["time_twice"],
                   "--time と --game-time はどちらも考慮時間の指定です。どちらか一つにしてください"),
    "unknown_ai": (PROBLEMS["unknown_ai"], "'{name}' という AI はありません。次から選んでください: {names}"),
    "own_ai": (PROBLEMS["own_ai"], "自作のコンピューターを使えません: {detail}"),
    "no_engine_command": (PROBLEMS["no_engine_command"], "--engine には実行するコマンドを指定してください"),
    "engine_unquoted": (PROBLEMS["engine_unquoted"],
                        "--engine のコマンドに閉じていない引用符があるか、最後がバックスラッシュです: {command}"),
    "rec_not_record": (PROBLEMS["rec_not_record"], "cardstand の棋譜ではありません"),
    "rec_no_id": (PROBLEMS["rec_no_id"], "棋譜が壊れています: 対局 ID がありません"),
    "rec_bad_id": (PROBLEMS["rec_bad_id"], "棋譜が壊れています: 対局 ID '{id}' が不正です"),
    "rec_bad_size": (PROBLEMS["rec_bad_size"], "棋譜が壊れています: 盤の大きさ '{size}' が不正です"),
    "rec_bad_shape": (PROBLEMS["rec_bad_shape"], "棋譜が壊れています: 盤の形が不正です（{reason}）"),
    "rec_other_id": (PROBLEMS["rec_other_id"],
                     "棋譜が壊れています: 中身の対局 ID は '{id}' ですが、ファイル名は '{name}' です"),
    "rec_unsigned": (PROBLEMS["rec_unsigned"], "署名がありません（共有秘密鍵なしで書かれました）"),
    "rec_no_line": (PROBLEMS["rec_no_line"], "署名を確かめられません（'{line}' の行がありません）"),
    "rec_bad_mac": (PROBLEMS["rec_bad_mac"], "署名が合いません（書き換えられたか、別の共有秘密鍵で書かれました）"),
    "rec_no_replay": (PROBLEMS["rec_no_replay"], "手順を再現できません（{reason}）"),
    "rec_not_over": (PROBLEMS["rec_not_over"], "終局と書かれていますが、{n} 手目のあと{colour}にはまだ打てる場所があります"),
    "rec_wrong_result": (PROBLEMS["rec_wrong_result"], "結果 '{result}' が手順から出る結果（{b}-{w}）と違います"),
    "rec_not_resigned": (PROBLEMS["rec_not_resigned"], "投了と書かれていますが、結果が '{result}' です"),
    "rec_not_regular": (PROBLEMS["rec_not_regular"], "普通のファイルではありません（{what}）"),
    "rec_too_big": (PROBLEMS["rec_too_big"], "棋譜にしては大きすぎます"),
    "rec_folder": (PROBLEMS["rec_folder"], "フォルダです（棋譜ではありません）"),
    "table_without_share": (PROBLEMS["table_without_share"],
                            "--table は共有フォルダの卓の名前です。共有フォルダを --share で指定してください"),
    "share_empty": (PROBLEMS["share_empty"], "共有フォルダの名前が空です。卓の入った共有フォルダを指定してください"),
    "share_unreachable": (PROBLEMS["share_unreachable"], "共有フォルダ {share} にアクセスできません: {reason}"),
    "share_not_folder": (PROBLEMS["share_not_folder"], "共有フォルダ {share} はフォルダではありません"),
    "share_is_board": (PROBLEMS["share_is_board"],
                       "{share} は伝言台（cardstand.board があります）で、卓の入った共有フォルダではありません。"
                       "--board で指定するか、その一つ上のフォルダを指定してください"),
    "table_name": (PROBLEMS["table_name"],
                   "「{name}」は卓の名前に使えません。英数字と「-」「_」で 1〜32 文字、英数字で始め、Windows の装置名は避けてください"),
    "share_no_table": (PROBLEMS["share_no_table"], "{share} に卓を作れません: {reason}"),
    "table_is_league": (PROBLEMS["table_is_league"], "{name} はリーグのフォルダで、卓ではありません"),
    "table_of_league": (PROBLEMS["table_of_league"], "卓 {name} はリーグ {league} の対局用です。出場者が打ちます"),
    "table_not_folder": (PROBLEMS["table_not_folder"], "卓 {name} は共有フォルダの中のフォルダではありません（リンクかファイルです）。使いません"),
    "lobby_title": ("Tables on {share} ({n}); * = there now", "{share} の卓（{n}）。* は今いるプレイヤー"),
    "lobby_table": ("table", "卓"),
    "lobby_state": ("state", "状態"),
    "lobby_board": ("board", "盤"),
    "lobby_waiting": ("waiting for {colour}", "{colour}を待っています"),
    "lobby_playing": ("playing, move {n}", "対局中 {n} 手目"),
    "lobby_starting": ("starting", "開始中"),
    "lobby_left": ("left at move {n}", "{n} 手目で中断"),
    "lobby_closed": ("free (game closed)", "空き（対局は終了）"),
    "lobby_unusable": ("record unusable", "棋譜が使えません"),
    "lobby_free": ("free", "空き"),
    "lobby_own_board": ("own {size}x{size}", "自作 {size}×{size}"),
    "lobby_more": ("... and {n} more (a wider or taller terminal, or --gui, shows them)",
                   "…ほか {n} 卓（端末を広げるか --gui で表示）"),
    "lobby_none": ("No tables yet: players started with --share make them.",
                   "まだ卓がありません。--share で起動したプレイヤーが卓を作ります。"),
    "lobby_keys": ("N: watch table N   r N: replay   c N: clear (nobody there)   q: quit",
                   "番号: 観戦  r 番号: 再生  c 番号: 片付け（誰もいない卓）  q: 終了"),
    "lobby_gone": ("The share {share} cannot be reached just now; looking again.",
                   "共有フォルダ {share} に今はアクセスできません。また見ます。"),
    "lobby_no_such": ("No table {table} in the list.", "一覧に卓 {table} はありません。"),
    "lobby_back": ("Back to the lobby.", "ロビーに戻ります。"),
    "lobby_no_record": ("No game has been played at {table} yet.", "卓 {table} ではまだ対局がありません。"),
    "lobby_replay_more": ("To step through it: {command}", "一手ずつ見るには: {command}"),
    "lobby_enter": ("Press Enter to go back to the lobby.", "Enter でロビーに戻ります。"),
    "lobby_cannot_clear": ("Someone is at {table}: it is not cleared.", "卓 {table} には人がいるので片付けません。"),
    "lobby_clear_ask": ("Clear the table {table} (its folder and the records in it are removed)? [y/N]",
                        "卓 {table} を片付けますか（フォルダと中の棋譜を削除します）? [y/N]"),
    "lobby_not_cleared": ("The table {table} is kept.", "卓 {table} はそのままにします。"),
    "lobby_cleared": ("The table {table} was cleared.", "卓 {table} を片付けました。"),
    "at_table": ("At table {table} on the share {share}.", "共有フォルダ {share} の卓 {table} に着きました。"),
    # the board folder and the shared secret (comm.adopt.why_unfit, comm.SecretProblem: their English)
    "unfit_empty_name": ("the board folder's name is empty: name a folder (the default is ./cardstand)",
                         "伝言台のフォルダ名が空です。フォルダを指定してください（省略すると ./cardstand）"),
    "unfit_bad_folder_name": ("{folder} cannot be a folder: {why}", "{folder} はフォルダーの名前になりません: {why}"),
    "unfit_a_file": ("{file} is a file, not a folder: name a new or empty folder for the board",
                     "{file}はファイルで、フォルダではありません。伝言台には新しいフォルダか空のフォルダを指定して"
                     "ください"),
    "unfit_not_a_board": ("{folder} is not a board (it has no cardstand.board) and holds other files ({shown}): "
                          "name a new or empty folder, and a board is made there",
                          "{folder}は伝言台ではなく（cardstand.board がありません）、ほかのファイル（{shown}）が"
                          "あります。新しいフォルダか空のフォルダを指定すれば、そこに伝言台を作ります"),
    "board_not_a_marker": ("{marker} is not a cardstand board marker: choose another folder",
                           "{marker}は cardstand の伝言台の目印ではありません。別のフォルダを指定してください"),
    "board_other_version": ("{folder} is a board of protocol version {version}; this program speaks version {mine}",
                            "{folder}はプロトコルのバージョン {version}の伝言台です（このプログラムは {mine}）"),
    "board_cannot_use": ("cannot use {folder} as a board: {reason}", "{folder}を伝言台として使えません: {reason}"),
    "board_cannot_join": ("cannot join {folder} as {name}: {reason}", "{folder}に {name}として参加できません: {reason}"),
    "board_name_contested": ("cannot join {folder} as {name}: the name keeps changing hands",
                             "{folder}に {name}として参加できません: その名前で次々に別のプログラムが参加しています"),
    # why a board could not be joined (comm's problem codes), before the system's own words
    "why_gone": ("the folder is gone or unreachable (deleted, or a share no longer mounted): {system}",
                 "フォルダーがないか届きません（削除されたか、共有のマウントが外れています）: {system}"),
    "why_full": ("no space left on its disk: {system}", "ディスクに空きがありません: {system}"),
    "why_readonly": ("it is on a read-only disk or share: {system}", "読み取り専用のディスクか共有の上にあります: {system}"),
    "why_denied": ("permission denied (its owner or permissions?): {system}",
                   "アクセスが拒否されました（所有者か権限を確かめてください）: {system}"),
    "why_disconnected": ("its share is disconnected or stale: {system}", "共有が切断されているか応答しません: {system}"),
    "why_io": ("input/output error on its disk or share: {system}", "ディスクか共有で入出力エラーが起きました: {system}"),
    "why_locked": ("its lock stayed taken: {system}", "ロックが空きませんでした: {system}"),
    "secret_missing": ("cannot read the secret file {file}: no such file",
                       "秘密鍵ファイル {file}を読めません: そのファイルはありません"),
    "secret_not_a_file": ("cannot read the secret file {file}: not a regular file",
                          "秘密鍵ファイル {file}を読めません: 普通のファイルではありません"),
    "secret_unreadable": ("cannot read the secret file {file}: {cause}",
                          "秘密鍵ファイル {file}を読めません（{cause}）"),
    "secret_too_long": ("the secret file {file} is longer than {limit} bytes: not a secret file",
                        "{file}は {limit} バイトより長いので、秘密鍵ファイルではありません"),
    "secret_empty_file": ("the shared secret in the secret file {file} is empty",
                          "秘密鍵ファイル {file}の共有秘密鍵が空です"),
    "secret_empty_variable": ("the shared secret in CARDSTAND_SECRET is empty",
                              "CARDSTAND_SECRET の共有秘密鍵が空です"),
    "bad_shape": (REASONS["bad_shape"], "盤の形が不正です: {reason}"),
    # (on a screen a board is named in full: "the Heart board (8x8 with holes)")
    "shape_wanted": ("white wants {theirs}, black proposes {mine}", "白の希望は {theirs}、黒の提案は {mine}です"),
    "shape_proposed": ("black proposes {theirs}, white wants {mine}", "黒の提案は {theirs}、白の希望は {mine}です"),
    # -- boards (engine.Shape): what a game is played on -------------------------------------------
    "board_plain": ("{size}x{size}", "{size}×{size}の盤"),
    "board_named": ("the {name} board ({size}x{size} with holes)", "{name}の盤（{size}×{size}、穴あり）"),
    "board_named_start": ("the {name} board ({size}x{size}, its own start)", "{name}の盤（{size}×{size}、独自の初期配置）"),
    "board_own": ("a board of one's own ({size}x{size})", "独自の盤（{size}×{size}）"),
    # -- the window (peer.faces.window) -------------------------------------------------------------
    "gui_title": ("Othello: {colour} on {board}", "オセロ: {colour}（{board}）"),
    "gui_watch_title": ("Othello: watching {board}", "オセロ: {board}を観戦"),
    "gui_replay_title": ("Othello: {file}", "オセロ: {file}"),
    "replay_title": ("{black} (black) - {white} (white), {date}: {status}", "{black}（黒）対 {white}（白）、{date}: {status}"),
    "gui_hint": ("Hint", "ヒント"),
    "gui_resign": ("Resign", "投了"),
    "gui_resign_sure": ("Resign? Click again", "投了する？もう一度押す"),
    "gui_quit": ("Quit", "中断"),
    "gui_lobby_watch": ("Watch", "観戦"),
    "gui_lobby_replay": ("Replay", "再生"),
    "gui_lobby_close": ("Close", "閉じる"),
    "gui_lobby_clocks": ("time used", "消費時間"),
    "gui_lobby_hint": ("Double-click a table to watch its game.", "卓をダブルクリックすると観戦できます。"),
    "gui_lobby_choose": ("Choose a table in the list first.", "先に一覧から卓を選んでください。"),
    "gui_lobby_opened": ("Opened {table} in a window of its own.", "{table} を別のウィンドウで開きました。"),
    "gui_close": ("Close", "閉じる"),
    "gui_send": ("Send", "送信"),
    "gui_chat": ("Chat:", "チャット:"),
    "gui_moves": ("Moves", "棋譜"),
    "gui_moves_hidden": ("Moves: hidden (a taller window shows them)",
                         "棋譜: 高いウィンドウで表示"),
    "gui_your_turn": ("Your turn ({colour}): click a square", "あなたの番です（{colour}）。マスをクリックしてください"),
    "gui_to_play": ("{name} ({colour}) to play", "{name}（{colour}）の番です"),
    "gui_passed": ("{colour} has no legal move and passes", "{colour}は打てる場所がないのでパス"),
    "gui_replay_at": ("After move {n} of {last}", "{last}手中 {n}手目のあと"),
    "gui_replay_start": ("The start: {last} moves to replay", "開始局面: 全{last}手"),
    "gui_leaving": ("Leaving ... (close the window again to leave at once, without telling the opponent)",
                    "中断しています…（もう一度閉じると、相手に知らせずにすぐ終了します）"),
    "gui_to_leave": ("click Quit to leave", "やめるときは「中断」をクリック"),
    "gui_watching": ("Watching {board} ...", "{board}を観戦しています…"),
    "gui_computer_plays": ("The computer plays this side: the board takes no clicks.",
                           "この側はコンピューターが打ちます。盤をクリックしても打てません。"),
    "gui_no_tk": ("--gui needs tkinter, which this Python does not have ({reason}). Install it ({packages}), "
                  "or play in the terminal without --gui.",
                  "--gui には tkinter が必要ですが、この Python にはありません（{reason}）。インストールするか"
                  "（{packages}）、--gui を付けずに端末で対局してください。"),
    "gui_no_display": ("--gui cannot open a window: {reason}. Start it from a desktop session (on another "
                       "computer: ssh -X), or play in the terminal without --gui.",
                       "--gui でウィンドウを開けません: {reason}。デスクトップの端末から起動するか（別のコンピューターなら "
                       "ssh -X）、--gui を付けずに端末で対局してください。"),
    "records_differ": (REASONS["records_differ"],
                       "両者の記録が異なる対局になっています（棋譜が一致しません）"),
    "not_my_ply": (REASONS["not_my_ply"],
                   "棋譜が {n} 手目に {colour} の手として {square} を打っていますが、{colour} はその手を打っていません"),
    "bad_record": ("the game record on the board is damaged and was not used: {reason}",
                   "伝言台の棋譜が壊れているので使いませんでした: {reason}"),
    "record_untrusted": ("The record of game {id} on the board cannot be trusted: {reason}. It was set aside "
                         "({where}) and is not used.",
                         "伝言台の対局 {id}の棋譜は信用できません: {reason}。棋譜は別名で残し（{where}）、"
                         "使いません。"),
    "record_damaged": ("The record of game {id} on the board is damaged: {reason}. It was set aside "
                       "({where}) and is not used.",
                       "伝言台の対局 {id}の棋譜は壊れています: {reason}。棋譜は別名で残し（{where}）、"
                       "使いません。"),
    "recover": ("Game {id} goes on from the moves {colour} still has; if it has none, it starts again from "
                "the first move.",
                "対局 {id}は {colour}の側に残っている手から続けます。残っていなければ最初からやり直します。"),
    "adopted": ("{n} move(s) from {name}'s copy of the game, from move {first} (this side had not seen "
                "them):",
                "{name}の側の記録から {first}手目以降の {n}手を取り込みます（この側では見ていない手です）:"),
    "adopted_mine": ("{move}: your move, as {name}'s side has it.",
                     "{move}: あなたの手（{name}の側の記録による）。"),
    # the start screen (peer/faces/start.py)
    "start_lang": ("Language / 言語: 1 English, 2 日本語", "Language / 言語: 1 English, 2 日本語"),
    "start_board": ("Board folder: both players name the same one (made if missing; on a network share "
                    "use a subfolder)",
                    "伝言台のフォルダー: 二人とも同じフォルダーを指定します（なければ作ります。"
                    "ネットワーク共有ではその中のサブフォルダーを）"),
    "start_colour": ("Your colour: 1 black (moves first), 2 white", "手番: 1 黒（先手）, 2 白"),
    "start_who": ("Who plays it: 1 you, 2 a computer player, 3 your own AI (a .py file)",
                  "誰が打ちますか: 1 あなた, 2 コンピューター, 3 自作 AI（.py ファイル）"),
    "start_ai": ("Which computer player (number or name)", "どのコンピューターにしますか（番号か名前）"),
    "start_own": ("Your AI as FILE.py or FILE.py:CLASS (docs/ai.md)", "自作 AI: FILE.py または FILE.py:CLASS（docs/ai.md）"),
    "start_size": ("Board size, even 4..26", "盤の大きさ（4〜26 の偶数）"),
    "start_size_white": ("Board size, even 4..26 (empty: the one black proposes)",
                         "盤の大きさ（4〜26 の偶数。空欄なら黒の提案どおり）"),
    "start_board_kind": ("The board: 1 the usual 8x8, 2 a square of another size, 3 a shaped board (holes, "
                         "a heart...)", "盤: 1 いつもの 8×8, 2 ほかの大きさの正方形, 3 形のある盤（穴、ハートなど）"),
    "start_shape": ("Which board (its number or name, or a picture file of your own)",
                    "どの盤にしますか（番号か名前、または自作の盤の絵のファイル）"),
    "start_unfinished": ("This board folder has an unfinished game: {game}.",
                         "この伝言台には途中の対局があります: {game}。"),
    "start_game_line": ("{black} (black) - {white} (white) on {board}, move {n} next",
                        "{black}（黒）対 {white}（白）、{board}、次は {n} 手目"),
    "start_resume": ("1 go on with it, 2 close it (abandoned) and start a new game",
                     "1 続きを打つ, 2 中断して（放棄）新しい対局を始める"),
    "start_bad_shape": ("Not a board: type a number or a name shown, or a picture file's path.",
                        "盤ではありません。表示された番号か名前、または盤の絵のファイルを入力してください。"),
    "start_time": ("Seconds per move for the computer", "コンピューターの 1 手の持ち時間（秒）"),
    "start_default": ("default", "既定"),
    "start_share": ("{share} is a class's share of {n} tables:", "{share} は卓が {n} ある共有フォルダです:"),
    "start_table": ("Table: its number, or a name (a new table is made)",
                    "卓: 番号、または名前（新しい卓を作ります）"),
    "start_form_table": ("Table (when the folder is a class's share)", "卓（フォルダがクラスの共有フォルダのとき）"),
    "start_first_waiting": ("the first one waiting for your colour", "自分の色を待っている最初の卓"),
    "start_bad_choice": ("Type one of the numbers shown.", "表示された番号を入力してください。"),
    "start_bad_size": ("The size is an even number from 4 to 26.", "大きさは 4〜26 の偶数です。"),
    "start_bad_time": ("Seconds: a number above 0, at most 3600.", "秒数は 0 より大きく 3600 以下の数です。"),
    "start_bad_ai": ("Not a computer player: type a number or a name shown.", "表示された番号か名前を入力してください。"),
    "start_starting": ("Starting. Next time you can type:", "開始します。次回はこう入力しても同じです:"),
    "start_cancelled": ("Nothing started.", "開始しませんでした。"),
    "start_again": ("The same answers next time (an unfinished game is resumed), type:",
                    "次回も同じ答えで始めるには（途中の対局は再開されます）、こう入力します:"),
    "start_title": ("Othello on a shared folder: a new game", "伝言台オセロ: 新しい対局"),
    "start_form_lang": ("Language", "言語"),
    "start_form_board": ("Board folder (both players name the same one)", "伝言台のフォルダー（両者が同じものを指定）"),
    "start_form_colour": ("Your colour", "手番"),
    "start_form_shape": ("The board", "盤"),
    "start_form_who": ("Who plays it", "打つのは"),
    "start_form_ai": ("Computer player", "コンピューター"),
    "start_form_own": ("Your AI (FILE.py or FILE.py:CLASS)", "自作 AI（FILE.py または FILE.py:CLASS）"),
    "start_form_time": ("Seconds per move", "1 手の持ち時間（秒）"),
    "start_form_size_n": ("{n}x{n}", "{n}×{n}"),
    "start_form_shape_n": ("{name} (8x8 with holes)", "{name}（穴のある 8×8）"),
    "start_form_start_n": ("{name} (8x8, its own start)", "{name}（8×8、独自の初期配置）"),
    "start_form_new": ("If the board folder holds an unfinished game, close it and start a new one (else it goes on)",
                       "伝言台に途中の対局があれば、中断して新しく始める（しなければ続きを打ちます）"),
    "start_form_blacks": ("the one black proposes", "黒が決める盤"),
    "start_start": ("Start", "開始"),
    "start_cancel": ("Cancel", "やめる"),
    "start_browse": ("Browse...", "参照..."),
}

LANGS = ("en", "ja")

# The built-in boards (engine/shapes.txt) by their Japanese names; English shows the names as spelt there.
SHAPE_NAMES_JA = {
    "X": "エックス", "x": "小さなエックス", "Square-8": "正方形8", "Square-6": "正方形6", "Square-4": "正方形4",
    "Octagon": "八角形", "Diamond": "ダイヤモンド", "Clover": "クローバー", "Cross": "十字", "Plus": "プラス",
    "Drone": "ドローン", "Kazaguruma": "風車", "Manji": "卍", "Rectangle": "長方形", "Heart": "ハート",
    "T": "T字", "Torus": "トーラス", "Two": "二の字", "Equal": "イコール", "Xhole": "X字の穴",
    "Inside": "内側", "Outside": "外側",
}


def default_lang() -> str:
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        v = os.environ.get(var, "")
        if v:
            return "ja" if v.lower().startswith("ja") else "en"
    try:
        loc = locale.getlocale()[0] or ""
    except ValueError:
        loc = ""
    return "ja" if loc.lower().startswith(("ja", "japanese")) else "en"


def names(key: str, field: str) -> bool:
    """Whether the text ``key`` says its ``field`` (in every language)."""
    return all("{" + field + "}" in t for t in TEXTS[key])


def text(lang: str, key: str, **kw: object) -> str:
    en, ja = TEXTS[key]
    return (ja if lang == "ja" else en).format(**kw)
