"""MCP23S17 hardware addressing on a shared chip select, with Microchip's HAEN erratum.

Up to eight expanders share one chip select and tell themselves apart by their A2-A0 pins,
but only once IOCON.HAEN is set: after power-up every one answers hardware address 0.
Microchip's silicon erratum for the MCP23S17 says otherwise for a chip whose A2 pin is
high: with HAEN clear it answers address 4 (A2 set), not 0, so a HAEN write to address 0
never reaches it, and the four A2-high expanders of a group then all take each other's
writes (the Adafruit library's ``enableAddrPins`` works around it the same way). So
:func:`enable_addresses` writes IOCON with HAEN to address 0 **and** to address 4, then
checks every expander at its own address: a distinct value written to DEFVALA (harmless:
interrupt-on-change is never enabled) must read back there, and IOCON must show HAEN.

``bus`` needs two methods: ``mcp_write(device, hw, reg, data)`` and
``mcp_read(device, hw, reg)`` (one byte). Portable: runs on the controller and under
CPython (``hal_fake.FakeExpanders`` models the chips, erratum included).
"""

IODIRA = 0x00
DEFVALA = 0x06
IOCON = 0x0A
OLATA = 0x14
HAEN = 0x08
A2_ADDRESS = 4  # where an A2-high expander answers while HAEN is clear (the erratum)


def enable_addresses(bus, device, addresses):
    """Set IOCON.HAEN on the expanders behind chip select ``device``; the ``addresses``
    (hardware addresses 0-7) that do not answer at their own address afterwards."""
    for hw in (0, A2_ADDRESS):
        bus.mcp_write(device, hw, IOCON, bytes((HAEN, HAEN)))
    for hw in addresses:
        bus.mcp_write(device, hw, DEFVALA, bytes((0xA0 | hw,)))
    bad = []
    for hw in addresses:
        if bus.mcp_read(device, hw, DEFVALA) != 0xA0 | hw or not bus.mcp_read(device, hw, IOCON) & HAEN:
            bad.append(hw)
    return bad
