"""The «Эрудит-квартет» tournament around the fights (seed 004 §II), pure: no I/O, no clock.

Contract: `draw.draw_groups` is the public draw of 24 teams into six groups of four (seeded, the
seed returned to be logged, 2.1, 2.2.2, 2.3.3); `grid.Tournament` is the grid built from it and
the fights' results: the group fights, three semi-finals and three consolation fights formed by
a scheme fixed in advance (`grid.DEFAULT_SCHEME`, 2.3.3), the final of the semi-final winners and
the best runner-up over two fights (2.2.3); `export` gives the standings and the grid as CSV and
JSON. Keeping them on disk, publishing them and the organiser's page are the shell's, not here.
"""
