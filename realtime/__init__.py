"""Online solving: subgames from a live state, gadgets, leaf evaluators, search agents."""
