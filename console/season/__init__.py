"""The seasons around the games: «Что? То? Там?» (seed 000) and the Belgorod championship (seed 003)."""
