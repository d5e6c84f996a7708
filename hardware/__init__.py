"""The serial LED panel: protocol, host driver, LED layout, emulator and simulator tooling.

See hardware/PROTOCOL.md for the wire protocol and hardware/firmware/ for the firmware.
"""
