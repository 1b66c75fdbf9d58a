"""«Брейн-ринг» (game.kind = "brainring"): config, registry entry, terminal texts."""
