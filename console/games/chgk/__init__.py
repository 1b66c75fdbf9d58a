"""The «Что? Где? Когда?» table (seeds 000 and 003): its kind, config, texts and question files."""
