"""What a player sees: every face draws the session's ``View`` and puts its ``Event``s in words.

- ``texts``    every text a player reads, in English and Japanese
- ``plain``    ``Screen``: plain lines (scripts, pipes, ``--plain``); what the others build on
- ``face``     ``Face``: a screen drawn in place while the session runs in a worker thread
- ``live``     the live terminal screen (``LiveScreen``)
- ``window``   the window (``Window``, tkinter)
- ``records``  watching a board and replaying a record, drawn from ``record_view``
"""
