"""The «Что? Где? Когда?» table (seeds 000 and 003): the referee, the table, its rounds and events."""
