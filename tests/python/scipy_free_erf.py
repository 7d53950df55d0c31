"""erf for NumPy arrays without SciPy (math.erf elementwise)."""
import math

import numpy as np

erf = np.vectorize(math.erf, otypes=[np.float64])
