"""Hardware drivers: the only code that touches serial, GPIO or I2C.

Each driver has the real implementation and a fake or simulated one with the same
interface, chosen by configuration. Protocol parsing is pure (bytes in, frames out).
"""
