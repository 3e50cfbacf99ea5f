"""What the session hands its faces: ``Event``s, never words and never a screen call.

An event says what happened (``what``, a key of ``peer.faces.texts``) with raw fields; each face puts
them in its own language (``peer.faces.plain.Screen.words``).  The fields that need words are raw:

- ``colour``: ``BLACK`` or ``WHITE``;
- ``name``, ``other``, ``black``, ``white``, ``old``: a player's name as given (the default names
  ``black``, ``white``, ``person`` and ``computer`` are shown in the face's language);
- ``result``: a record's result (D1), like ``36-28`` or ``white resigned``;
- ``reason``: a ``Reason`` (the session's own, or the engine's), else an English text from
  elsewhere (the board, the opponent) shown as it is;
- ``leave_by``: how this side is left: ``human`` (types quit), ``terminal`` (quit or Ctrl+C),
  ``computer`` (Ctrl+C);
- ``view``: the ``View`` to draw (``board``).
"""
from dataclasses import dataclass, field
from typing import Any, Dict, Protocol


@dataclass(frozen=True)
class Event:
    """Something that happened, for the faces (see the module's doc for the fields)."""

    what: str
    fields: Dict[str, Any] = field(default_factory=dict)


class Listener(Protocol):
    """What a session tells what happens to: a face (``peer.faces``)."""

    def tell(self, event: Event) -> None:
        """``event`` happened (draw the board of a ``board`` event's view, or say it)."""
