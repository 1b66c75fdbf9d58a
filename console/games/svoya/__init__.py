"""«Своя игра» (seed 004, App.1-11): its kind (registry entry), config and texts."""
