"""G7: the board's problems (``comm.Board.problem``) the session acts on, and their words."""

# the board cannot be used at all (T1, T4, T6): waited for, looked at again every LOOK_EVERY s;
# with the texts that say it and that leave
AWAY = {"gone": ("board_gone", "board_gone_leave"),
        "disconnected": ("board_disconnected", "board_gone_leave"),
        "swapped": ("board_swapped", "board_swapped_leave")}
# nothing can be written on the board (T2, T5): what was not sent is sent again, backing off;
# the words for the cause ("full" has texts of its own)
UNWRITABLE = {"full": None, "readonly": "cause_readonly", "denied": "cause_denied", "io": "cause_io"}
