"""The «Что? Где? Когда?» table (seeds 000 and 003): its kind (registry entry), config, texts and question files."""
