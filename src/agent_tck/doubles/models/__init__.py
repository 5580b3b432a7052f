"""Scripted stand-ins for the model APIs the real CLIs call (see doubles/models/server.py)."""
