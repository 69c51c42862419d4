"""Card abstraction (suit isomorphism, features, clustering, bucket tables) and action abstraction."""
