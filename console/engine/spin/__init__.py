"""The top (волчок): the angle signal, the stop detector, the sectors and their calibration."""
