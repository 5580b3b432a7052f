"""Test doubles: the fake harness, the scripted model servers, the real-CLI sandbox and installer.

They stand in for what an implementation talks to; they import only the kit's errors and
paths, never the steps.
"""
