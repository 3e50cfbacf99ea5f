"""How a session ends from deep inside a rule: ``raise Leave(code)``."""


class Leave(Exception):
    """End the session with an exit code (the reason was already shown)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code
