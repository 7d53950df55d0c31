"""The layer classes of oar.nn, one module per family."""
