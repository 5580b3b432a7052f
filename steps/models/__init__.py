"""Scripted stand-ins for the model APIs the real CLIs call (see steps/models/server.py)."""
