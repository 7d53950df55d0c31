"""oar.text.datasets, as paddle.text.datasets, read from local files in Paddle's formats (oar does
not download: a missing file raises FileNotFoundError naming where to put it)."""
from .conll05 import Conll05st
from .imdb import Imdb
from .imikolov import Imikolov
from .movielens import Movielens
from .uci_housing import UCIHousing
from .wmt14 import WMT14
from .wmt16 import WMT16

__all__ = []  # as Paddle's: oar.text exports the classes
