"""«Брейн-ринг»: the referee of team fights on the buttons (../shared/RULES.md §5)."""
