"""oar.text, as paddle.text: Viterbi decoding (viterbi_decode.py)."""
from .viterbi_decode import ViterbiDecoder, viterbi_decode

__all__ = ["ViterbiDecoder", "viterbi_decode"]
