"""«Своя игра» (seed 004, App.1-11): the referee, its presses, questions, corrections and events."""
