"""The OLED scoreboard display (luma.oled): devices from configuration, push on change.

Screens are drawn elsewhere (:mod:`scoreboard.screens`); this package only sends images.
:mod:`drivers.display.panels` is the table of known panels (pure data, no imports of
luma or Pillow, so the configuration can check ``[display]`` without loading them);
:mod:`drivers.display.oled` builds the devices.
"""
