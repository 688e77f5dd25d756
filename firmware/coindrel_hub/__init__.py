# Coindrel sensor hub firmware (MicroPython, RP2040). main.py starts it; see
# firmware/README.md. Nothing here runs at import.
VERSION = "1.0.0"
