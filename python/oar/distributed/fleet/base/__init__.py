"""fleet.base: DistributedStrategy and the hybrid-parallel topology."""
