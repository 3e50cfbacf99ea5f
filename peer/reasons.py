"""The session's own refusal reasons in the English that goes on the wire (a face shows them
in its own language: ``faces.texts`` uses these as its English column).  No imports: the
check for a missing dependency (``installed``) reads the texts before anything else loads."""
# The session's reasons for ``refuse`` and ``refused`` (H4, G2), as they go on the board: in
# English, whatever the language of either screen (``peer.faces.texts`` says them on a screen).  The
# engine's reasons for an illegal move are its ``IllegalMove`` messages.
REASONS = {
    "missing": "move {n} arrived but {expected} was expected",
    "out_of_turn": "not your turn",
    "records_differ": "the two sides remember different games (records differ)",
    "bad_game_id": "bad game id '{id}' (1-64 of A-Z a-z 0-9 . _ -, not starting with '.')",
    "bad_size": "bad board size '{size}'",
    "bad_moves": "the moves '{moves}' do not replay: {reason}",
    "bad_version": "protocol version {v} is not supported (this program speaks {mine})",
    "size_wanted": "white wants a board of {theirs}x{theirs}, black proposes {mine}x{mine}",
    "size_proposed": "black proposes a board of {theirs}x{theirs}, white wants {mine}x{mine}",
    "bad_shape": "bad board shape: {reason}",
    "shape_wanted": "white wants the board {theirs}, black proposes {mine}",
    "shape_proposed": "black proposes the board {theirs}, white wants {mine}",
    "no_secret_there": "{other} plays without the shared secret; give both sides the same "
                       "CARDSTAND_SECRET or --secret-file",
    "no_secret_here": "{other} plays with a shared secret and this side has none: give both sides "
                      "the same CARDSTAND_SECRET or --secret-file",
    "other_secret": "{other} plays with a different shared secret (its messages fail the MAC check); "
                    "give both sides the same CARDSTAND_SECRET or --secret-file",
}
