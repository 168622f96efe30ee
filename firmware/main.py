"""MicroPython entry point on the controller: copy the ``firmware`` folder to the board and
this file to ``/main.py`` (hardware/README.md, "Flashing").

Geometry and link are set here: the reference build has 15 row readers and one reader
per rack (racks of 7 slots), and talks over USB.
"""

RACKS = 4
SLOTS = 7
LINK = "usb"  # or "uart" (UART0, GP0/GP1, 115200 baud)


def main():
    from firmware.controller import Controller
    from firmware.hal_rp2 import Rp2Hal
    from firmware.scanner import Scanner, row_layout

    layout = row_layout(RACKS, SLOTS)
    hal = Rp2Hal(len(layout.readers), link=LINK)
    controller = Controller(hal, layout, scanner=Scanner(hal, layout))
    controller.run_forever()


if __name__ == "__main__":
    main()
