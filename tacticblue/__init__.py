"""tacticblue: a camera companion for the tactic blue board games."""

__version__ = "0.1.0"
