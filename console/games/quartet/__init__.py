"""«Эрудит-квартет» (seed 004 §III): its kind (registry entry), config and texts."""
