"""paddle.amp.debugging (filled in below)."""
