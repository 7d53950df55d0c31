"""``python -m oar.distributed.launch [options] training_script [script args]``."""
from .main import launch

launch()
