"""The sports «Что? Где? Когда?» timer (seed 003 5.2-5.3): its kind (registry entry) and config."""
