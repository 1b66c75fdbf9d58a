"""The tools around the console: the terminal demos and the top's calibration."""
