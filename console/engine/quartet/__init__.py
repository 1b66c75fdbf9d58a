"""The «Эрудит-квартет» fight (seed 004 §III): its rounds, places, rules and events."""
