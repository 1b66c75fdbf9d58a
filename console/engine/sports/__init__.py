"""The sports «Что? Где? Когда?» timer (seed 003 5.2-5.3) and its events."""
