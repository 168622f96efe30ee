"""The reader board's schematic as code (SKiDL): row strip, rack reader, controller board.

Every part is defined here with its pins and their electrical types, so no KiCad library is
needed: ``python hardware/schematic.py OUTDIR`` runs the electrical rule check on each board
and writes a KiCad netlist per board and the bill of materials (tests/test_hardware_schematic.py
runs the same and fails on any ERC error or warning). Pin numbers follow the parts' data
sheets (MFRC522 rev. 3.9 HVQFN32, MCP23S17 SSOP-28, TBD62083AFWG SOIC-18W, SN74LVC1G125
SOT-23-5, 2N7002BKS SOT-363, BAR64-02V SOD-523, TLV75733P SOT-23-5, SN74LVC244A TSSOP-20, CD74HC154 SOIC-24,
Raspberry Pi Pico): check them against the sheets once more before a layout.

The design and the values are explained in hardware/DESIGN.md; the values come from
hardware/rfcalc.py. The cell coil's footprint (``hardware:cell_coil_15mm_4t``) is in
hardware/footprints.pretty (hardware/coil_footprint.py); the other footprints are KiCad's own
libraries', and the MT3608 module's is its four solder pads.
"""

from __future__ import annotations

import logging
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import skidl
from skidl import KICAD8, POWER, SKIDL, TEMPLATE, Circuit, Net, Part, Pin

ROW_ANTENNAS = 15
RACK_ANTENNAS = 7
ROW_STRIPS = 15
RACK_READERS = 4

T = Pin.types

# The reader connector (IDC 2 x 7; pin n and n + 1 are neighbours on the ribbon, n and n + 2 in a
# header row): +12 V at the end with two grounds next to it (13 on the ribbon and across, 12
# along the row), so a ribbon shifted by a wire or a socket moved by a column puts 12 V on
# ground, never on a 3.3 V logic line.
CONNECTOR: dict[int, str] = {
    1: "+5V", 2: "NSS", 3: "+5V", 4: "MOSI", 5: "GND", 6: "SCK", 7: "GND",
    8: "MISO", 9: "GND", 10: "EXP_CS", 11: "IRQ", 12: "GND", 13: "GND", 14: "+12V",
}


@dataclass(frozen=True)
class Kind:
    """A part: what is bought (manufacturer part number) and its price per piece at the
    quantity one board and ten boards need (EUR, 2024-2025 distributor list prices, rounded)."""

    mpn: str
    what: str
    each_1: float
    each_10: float


def _pins(spec: str) -> list[Pin]:
    """Pins from 'num:name:type num:name:type ...' (type: i o b t p w W c n)."""
    kinds = {"i": T.INPUT, "o": T.OUTPUT, "b": T.BIDIR, "t": T.TRISTATE, "p": T.PASSIVE,
             "w": T.PWRIN, "W": T.PWROUT, "c": T.OPENCOLL, "n": T.NOCONNECT}
    out = []
    for item in spec.split():
        num, name, kind = item.split(":")
        out.append(Pin(num=num, name=name, func=kinds[kind]))
    return out


def _template(name: str, prefix: str, pins: str, footprint: str) -> Part:
    part = Part(tool=SKIDL, name=name, ref_prefix=prefix, dest=TEMPLATE, pins=_pins(pins))
    part.footprint = footprint
    return part


# --- the parts ------------------------------------------------------------------------------

MFRC522 = _template(
    "MFRC522", "U",
    "1:I2C:i 2:PVDD:w 3:DVDD:w 4:DVSS:w 5:PVSS:w 6:NRSTPD:i 7:MFIN:i 8:MFOUT:o 9:SVDD:w 10:TVSS:w "
    "11:TX1:o 12:TVDD:w 13:TX2:o 14:TVSS2:w 15:AVDD:w 16:VMID:p 17:RX:i 18:AVSS:w 19:AUX1:o 20:AUX2:o "
    "21:OSCIN:i 22:OSCOUT:o 23:IRQ:c 24:NSS:i 25:D1:b 26:D2:b 27:D3:b 28:D4:b 29:SCK:i 30:MOSI:i "
    "31:MISO:o 32:EA:i 33:EP:w",
    "Package_DFN_QFN:HVQFN-32-1EP_5x5mm_P0.5mm_EP3.45x3.45mm")
MCP23S17 = _template(
    "MCP23S17", "U",
    " ".join(f"{k + 1}:GPB{k}:b" for k in range(8)) + " 9:VDD:w 10:VSS:w 11:CS:i 12:SCK:i 13:SI:i 14:SO:t "
    "15:A0:i 16:A1:i 17:A2:i 18:RESET:i 19:INTB:o 20:INTA:o " + " ".join(f"{21 + k}:GPA{k}:b" for k in range(8)),
    "Package_SO:SSOP-28_5.3x10.2mm_P0.65mm")
SINK8 = _template(  # 8 DMOS sink drivers, 50 V outputs, 3.3 V inputs (input high: output sinks)
    "TBD62083AFWG", "U",
    " ".join(f"{k}:IN{k}:i" for k in range(1, 9)) + " 9:GND:w 10:COM:p "
    + " ".join(f"{19 - k}:OUT{k}:c" for k in range(1, 9)),
    "Package_SO:SOIC-18W_7.5x11.6mm_P1.27mm")
BOOST = _template(  # a 5 V -> 12 V boost module (MT3608), trimmed to 12 V; 12 V for the idle diodes' bias
    "MT3608_module", "U", "1:VIN:w 2:GND:w 3:VOUT:W 4:GNDO:w", "hardware:mt3608_module")
LVC1G125 = _template("SN74LVC1G125", "U", "1:OE:i 2:A:i 3:GND:w 4:Y:t 5:VCC:w", "Package_TO_SOT_SMD:SOT-23-5")
LDO = _template(  # 1 A PMOS LDO, dropout <= 425 mV at 1 A (55 mV at a strip's 130 mA): hardware/boardcalc.rail_budget
    "TLV75733P", "U", "1:IN:w 2:GND:w 3:EN:i 4:NC:n 5:OUT:W", "Package_TO_SOT_SMD:SOT-23-5")
LVC244 = _template(  # octal buffer: SCK and MOSI to the groups of ribbons (hardware/boardcalc.spi_edges)
    "SN74LVC244A", "U",
    "1:1OE:i 2:1A1:i 3:2Y4:o 4:1A2:i 5:2Y3:o 6:1A3:i 7:2Y2:o 8:1A4:i 9:2Y1:o 10:GND:w 11:2A1:i 12:1Y4:o "
    "13:2A2:i 14:1Y3:o 15:2A3:i 16:1Y2:o 17:2A4:i 18:1Y1:o 19:2OE:i 20:VCC:w",
    "Package_SO:TSSOP-20_4.4x6.5mm_P0.65mm")
UFL = _template("U.FL", "J", "1:SIG:p 2:GND:p", "Connector_Coaxial:U.FL_Hirose_U.FL-R-SMT-1_Vertical")
NMOS2 = _template(  # two N-MOSFETs, back to back across a coil: its short when idle
    "2N7002BKS", "Q", "1:S1:p 2:G1:i 3:D2:p 4:S2:p 5:G2:i 6:D1:p", "Package_TO_SOT_SMD:SOT-363_SC-70-6")
PIN_DIODE = _template("BAR64-02V", "D", "1:K:p 2:A:p", "Diode_SMD:D_SOD-523")
SCHOTTKY = _template("SS14", "D", "1:K:p 2:A:p", "Diode_SMD:D_SMA")
TVS = _template("SMBJ5.0A", "D", "1:K:p 2:A:p", "Diode_SMD:D_SMB")
TVS12 = _template(  # the +12 V clamp: 14.4-15.9 V breakdown, 16.2 V at the boost's worst fault current
    "SMBJ13A", "D", "1:K:p 2:A:p", "Diode_SMD:D_SMB")
FUSE12 = _template(  # 0.1 A hold, 0.3 A trip, 60 V: the +12 V clamp trips it (hardware/boardcalc.rail12)
    "PTC_0.1A", "F", "1:1:p 2:2:p", "Fuse:Fuse_1812_4532Metric")
HDR2 = _template("PinHeader_1x02", "J", "1:1:p 2:2:p", "Connector_PinHeader_2.54mm:PinHeader_1x02_P2.54mm_Vertical")
XTAL = _template("27.12MHz", "Y", "1:1:p 2:GND1:p 3:2:p 4:GND2:p", "Crystal:Crystal_SMD_3225-4Pin_3.2x2.5mm")
R = _template("R", "R", "1:1:p 2:2:p", "Resistor_SMD:R_0603_1608Metric")
C = _template("C", "C", "1:1:p 2:2:p", "Capacitor_SMD:C_0603_1608Metric")
L = _template("L", "L", "1:1:p 2:2:p", "Inductor_SMD:L_0805_2012Metric")
COIL = _template("CELL_COIL", "AE", "1:1:p 2:2:p", "hardware:cell_coil_15mm_4t")
FUSE = _template("PTC", "F", "1:1:p 2:2:p", "Fuse:Fuse_1812_4532Metric")
STRIP_FUSE = _template("PTC_0.2A", "F", "1:1:p 2:2:p", "Fuse:Fuse_0805_2012Metric")
JUMPER = _template("SolderJumper", "JP", "1:1:p 2:2:p", "Jumper:SolderJumper-2_P1.3mm_Open_Pad1.0x1.5mm")
HDR14 = _template("IDC_2x7", "J", " ".join(f"{k}:{k}:p" for k in range(1, 15)),
                  "Connector_IDC:IDC-Header_2x07_P2.54mm_Vertical")
TERM2 = _template("Screw_2", "J", "1:1:p 2:2:p", "TerminalBlock:TerminalBlock_bornier-2_P5.08mm")
HC154 = _template(
    "CD74HC154", "U",
    " ".join(f"{k + 1}:Y{k}:o" for k in range(11)) + " 12:GND:w 13:Y11:o 14:Y12:o 15:Y13:o 16:Y14:o 17:Y15:o "
    "18:E1:i 19:E2:i 20:A3:i 21:A2:i 22:A1:i 23:A0:i 24:VCC:w",
    "Package_SO:SOIC-24W_7.5x15.4mm_P1.27mm")
_PICO_GP = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16, 13: 17,
            14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31, 27: 32, 28: 34}
PICO = _template(
    "RPi_Pico", "U",
    " ".join(f"{pin}:GP{gp}:b" for gp, pin in _PICO_GP.items())
    + " 3:GND1:w 8:GND2:w 13:GND3:w 18:GND4:w 23:GND5:w 28:GND6:w 33:AGND:w 38:GND8:w "
    "30:RUN:i 35:ADC_VREF:p 36:3V3:W 37:3V3_EN:i 39:VSYS:w 40:VBUS:W",
    "Module:RaspberryPi_Pico_SMD")

KINDS: dict[str, Kind] = {
    "MFRC522": Kind("MFRC52202HN1,151", "NFC reader IC", 3.60, 3.10),
    "MCP23S17": Kind("MCP23S17-E/SS", "16-bit SPI I/O expander", 1.70, 1.45),
    "TBD62083AFWG": Kind("TBD62083AFWG", "8 DMOS sink drivers, 50 V (antenna switch drivers)", 0.90, 0.60),
    "MT3608_module": Kind("MT3608 boost module", "5 V to 12 V, the idle PIN diodes' reverse bias", 1.20, 0.80),
    "SN74LVC1G125": Kind("SN74LVC1G125DBVR", "MISO buffer", 0.20, 0.08),
    "TLV75733P": Kind("TLV75733PDBVR", "3.3 V LDO, 1 A, low dropout", 0.25, 0.12),
    "SN74LVC244A": Kind("SN74LVC244APWR", "octal buffer (SCK/MOSI to the ribbons)", 0.35, 0.20),
    "U.FL": Kind("U.FL-R-SMT-1", "RF test connector (NanoVNA, through 100 nF)", 0.40, 0.25),
    "2N7002BKS": Kind("2N7002BKS,115", "dual N-MOSFET (idle coil short)", 0.15, 0.06),
    "BAR64-02V": Kind("BAR64-02V H6327", "PIN diode (antenna switch)", 0.20, 0.09),
    "SS14": Kind("SS14", "Schottky 1 A (VSYS OR)", 0.10, 0.04),
    "SMBJ5.0A": Kind("SMBJ5.0A", "TVS 5 V after the input fuse (overvoltage; a reversed supply trips the fuse)", 0.20, 0.10),
    "27.12MHz": Kind("ABM8-27.120MHZ-10-1-U-T", "crystal 27.12 MHz, 10 pF", 0.60, 0.40),
    "CELL_COIL": Kind("(printed)", "15 x 15 mm printed coil, 4 turns", 0.0, 0.0),
    "PTC": Kind("MF-MSMF300/16-2", "polyfuse 3 A hold, 5 A trip, 16 V, 1812", 0.45, 0.30),
    "PTC_0.1A": Kind("MF-MSMF010-2", "polyfuse 0.1 A hold, 0.3 A trip, 60 V, 1812 (+12 V, tripped by its clamp)", 0.30, 0.15),
    "SMBJ13A": Kind("SMBJ13A", "TVS 13 V stand-off: the +12 V clamp (the boost module can make 28 V)", 0.20, 0.10),
    "PinHeader_1x02": Kind("2-pin header + jumper shunt", "safe-boot jumper (GP22 to GND)", 0.10, 0.05),
    "PTC_0.2A": Kind("MF-PSMF020X-2", "polyfuse 0.2 A hold, 0.4 A trip, 0805 (per reader)", 0.25, 0.12),
    "SolderJumper": Kind("(copper)", "address strap", 0.0, 0.0),
    "IDC_2x7": Kind("IDC 2x7 shrouded header", "strip connector", 0.25, 0.12),
    "Screw_2": Kind("5.08 mm 2-way terminal", "5 V input", 0.40, 0.25),
    "CD74HC154": Kind("CD74HC154M96", "4-to-16 decoder (chip selects)", 0.80, 0.55),
    "RPi_Pico": Kind("SC0915", "Raspberry Pi Pico", 4.00, 3.80),
}
PASSIVE_PRICE = {"R": (0.01, 0.004), "C": (0.01, 0.004), "C25V": (0.05, 0.02), "C0G1%": (0.04, 0.015), "L": (0.08, 0.04),
                 "Lrf": (0.15, 0.08), "Cbulk": (0.20, 0.10)}


# --- helpers --------------------------------------------------------------------------------


def _two(template: Part, value: str, a: Net, b: Net, cls: str = "") -> Part:
    part = template(value=value)
    part[1] += a
    part[2] += b
    part.fields["class"] = cls or template.name
    return part


def _rail(name: str) -> Net:
    net = Net(name)
    net.drive = POWER
    return net


@contextmanager
def _board(name: str) -> Iterator[Circuit]:
    ckt = Circuit(name=name)
    ckt.no_files = True
    with ckt:
        yield ckt


# --- the reader (one per row strip and per rack) ---------------------------------------------


def antenna_channel(k: int, bus: Net, drive: Net, v12: Net, gnd: Net) -> None:
    """Antenna ``k``: its 50 ohm match, the PIN diode that connects it to the strip's bus, and
    the MOSFET pair that shorts the idle coil. ``drive``: the open-drain line that selects it
    (low) or idles it (pulled up to 12 V)."""
    port, node, coil_end, mid = Net(f"PORT{k}"), Net(f"ANT{k}"), Net(f"COIL{k}"), Net(f"QS{k}")
    d = PIN_DIODE()
    d["A"] += bus
    d["K"] += port
    _two(R, "1.3k", port, drive)  # bias path: 3.2 mA when selected; 1.3 k against the 50 ohm port: 0.17 dB
    _two(R, "10k", drive, v12)  # idle: 12 V on the cathode, the diode reverse biased by 7 V
    _two(C, "68pF", port, node, "C0G1%")  # Cs
    _two(C, "300pF", node, gnd, "C0G1%")  # Cp
    _two(COIL, "379nH", node, coil_end)
    _two(R, "1.2R", coil_end, gnd)  # Rq: Q 20
    q = NMOS2()
    q["D1"] += node
    q["S1", "S2"] += mid
    q["D2"] += gnd
    q["G1", "G2"] += drive  # idle: gates at 12 V, the coil shorted; selected: 0 V, open
    _two(R, "100k", mid, gnd)


def reader(antennas: int, name: str) -> Circuit:
    """A reader board: MFRC522, MCP23S17, open-drain switch drivers, ``antennas`` channels."""
    with _board(name) as ckt:
        v5, v33, gnd, v5in, v12 = _rail("+5V"), _rail("+3V3"), _rail("GND"), _rail("+5V_IN"), _rail("+12V")
        sck, mosi, miso, nss, ecs, irq = (Net(n) for n in ("SCK", "MOSI", "MISO", "NSS", "EXP_CS", "IRQ"))
        j = HDR14()
        _two(STRIP_FUSE, "0.2A", v5in, v5, "PTC_0.2A")  # a shorted reader cannot take the others down
        nets = {"+5V": v5in, "GND": gnd, "+12V": v12, "SCK": sck, "MOSI": mosi, "MISO": miso, "NSS": nss,
                "EXP_CS": ecs, "IRQ": irq}
        for num, name in CONNECTOR.items():
            j[num] += nets[name]
        _two(C, "100nF", v12, gnd)
        _two(C, "100uF", v5, gnd, "Cbulk")
        reg = LDO()
        reg["IN", "EN"] += v5
        reg["OUT"] += v33
        reg["GND"] += gnd
        reg["NC"] += ckt.NC
        _two(C, "22uF", v33, gnd, "Cbulk")

        rc = MFRC522()
        for pin in ("PVDD", "DVDD", "AVDD", "TVDD", "SVDD"):
            rc[pin] += v33
            _two(C, "100nF", v33, gnd)
        _two(C, "10uF", v33, gnd)
        for pin in ("DVSS", "PVSS", "TVSS", "TVSS2", "AVSS", "EP", "I2C", "MFIN"):
            rc[pin] += gnd
        rc["EA"] += v33  # I2C = 0, EA = 1: SPI
        rc["NSS"] += nss
        rc["SCK"] += sck
        rc["MOSI"] += mosi
        rc["IRQ"] += irq  # open drain (DivIEnReg.IRQPushPull = 0), pulled up on the controller
        for pin in ("D1", "D2", "D3", "D4", "MFOUT", "AUX1", "AUX2", "TX2"):
            rc[pin] += ckt.NC  # TX2 unused: single-ended drive from TX1 (TxControlReg 0x81)
        y = XTAL()
        osc_in, osc_out = Net("OSCIN"), Net("OSCOUT")
        y[1] += osc_in
        y[3] += osc_out
        y["GND1", "GND2"] += gnd
        rc["OSCIN"] += osc_in
        rc["OSCOUT"] += osc_out
        _two(C, "15pF", osc_in, gnd, "C0G1%")
        _two(C, "15pF", osc_out, gnd, "C0G1%")
        buf = LVC1G125()  # MISO driven only while this reader is selected
        buf["A"] += Net("RC_MISO")
        rc["MISO"] += buf["A"]
        buf["OE"] += nss
        buf["Y"] += miso
        buf["VCC"] += v33
        buf["GND"] += gnd
        _two(C, "100nF", v33, gnd)  # at the buffer

        # transmitter: EMC low-pass and match to the 50 ohm bus (rfcalc.reader_match, 20 ohm)
        tx, emc, bus, vmid, rx = Net("TX"), Net("EMC"), Net("RFBUS"), Net("VMID"), Net("RX")
        rc["TX1"] += tx
        _two(L, "560nH", tx, emc)
        _two(C, "100pF", emc, gnd, "C0G1%")
        pad_in, pad_out, link = Net("PAD_IN"), Net("PAD_OUT"), Net("RF_LINK")
        _two(C, "180pF", emc, pad_in, "C0G1%")  # C1: the match to 50 ohm (rfcalc.reader_match)
        # 16 dB pi pad (boardcalc.pi_pad: 68.8 / 153.8 ohm): no CWGsP setting can drive the
        # coil to the selected MOSFET pair's clamp (DESIGN.md "Drive level")
        _two(R, "68R", pad_in, gnd)
        _two(R, "150R", pad_in, pad_out)
        _two(R, "68R", pad_out, gnd)
        _two(C, "100nF", pad_out, link)  # DC block: the bus sits at 5 V for the PIN bias
        _two(R, "0R", link, bus)  # lift to measure the bus alone from the U.FL (BRINGUP step 2)
        tp = UFL()  # the NanoVNA's port, DC blocked (the bus is at 5 V)
        tp_sig = Net("RF_TP")
        tp["SIG"] += tp_sig
        tp["GND"] += gnd
        _two(C, "100nF", tp_sig, bus)
        # receiver: from the bus through a divider to VMID (AN1445's RX circuit)
        rx_tap = Net("RXTAP")
        _two(C, "1nF", bus, rx_tap, "C0G1%")
        _two(R, "330R", rx_tap, rx)
        _two(R, "2.2k", rx, vmid)
        rc["RX"] += rx
        rc["VMID"] += vmid
        _two(C, "100nF", vmid, gnd)
        # PIN diode bias: the bus held at 5 V DC through a choke; the selected diode's 3.2 mA
        # flows on through its 1.3 k into the sink driver
        _two(L, "10uH", v5, bus, "Lrf")
        _two(C, "100nF", v5, gnd)

        ex = MCP23S17()
        ex["VDD"] += v33
        ex["VSS"] += gnd
        _two(C, "100nF", v33, gnd)
        ex["CS"] += ecs
        ex["SCK"] += sck
        ex["SI"] += mosi
        ex["SO"] += miso
        ex["RESET"] += v33
        for pin in ("INTA", "INTB"):
            ex[pin] += ckt.NC
        for a in ("A0", "A1", "A2"):  # hardware address = reader number mod 8: 10k up, jumper to GND
            strap = Net(f"ADDR_{a}")
            ex[a] += strap
            _two(R, "10k", strap, v33)
            _two(JUMPER, "", strap, gnd, "SolderJumper")
        rst = Net("NRSTPD")
        ex["GPB7"] += rst
        rc["NRSTPD"] += rst
        _two(R, "10k", rst, v33)  # the reader runs while the expander's pins are still inputs
        gp = [f"GPA{k}" for k in range(8)] + [f"GPB{k}" for k in range(7)]
        drivers = [SINK8() for _ in range((antennas + 7) // 8)]
        inputs = [(u, f"IN{g}", f"OUT{g}") for u in drivers for g in range(1, 9)]
        for u in drivers:
            u["COM"] += v12  # the clamp diodes' common: outputs never rise above 12 V
            u["GND"] += gnd
        for k in range(antennas):
            u, a, yk = inputs[k]
            sel = Net(f"SEL{k}")
            ex[gp[k]] += sel
            u[a] += sel
            _two(R, "100k", sel, gnd)  # all antennas idle until the firmware drives the pins
            drive = Net(f"DRV{k}")
            u[yk] += drive
            antenna_channel(k, bus, drive, v12, gnd)
        for k in range(antennas, 15):
            ex[gp[k]] += ckt.NC
        for u, a, yk in inputs[antennas:]:
            u[a] += gnd
            u[yk] += ckt.NC
        return ckt


# --- the controller board ---------------------------------------------------------------------


def controller(readers: int = ROW_STRIPS + RACK_READERS) -> Circuit:
    """The Pico, the chip-select decoders, the IRQ pull-up, power in, one connector per reader."""
    with _board("controller") as ckt:
        v5, v33, gnd = _rail("+5V"), _rail("+3V3"), _rail("GND")
        vin, vsys = Net("VIN"), Net("VSYS")
        vin.drive = POWER
        vsys.drive = POWER  # +5V through the Schottky
        term = TERM2()
        term[1] += vin
        term[2] += gnd
        _two(FUSE, "3A", vin, v5, "PTC")
        tvs = TVS()  # with the polyfuse before it: a reversed or over-voltage supply trips the fuse
        tvs["K"] += v5
        tvs["A"] += gnd
        _two(C, "470uF", v5, gnd, "Cbulk")
        v12, v12_boost = _rail("+12V"), Net("+12V_BOOST")
        boost = BOOST()
        boost["VIN"] += v5
        boost["GND", "GNDO"] += gnd
        boost["VOUT"] += v12_boost
        # the clamp: whatever the module's trimmer is set to (up to 28 V), +12V stays under the
        # gates' 20 V; a setting above the TVS's breakdown trips the fuse (boardcalc.rail12).
        # Fit the TVS against the fuse (thermal coupling: its heat trips the fuse too).
        _two(FUSE12, "0.1A", v12_boost, v12, "PTC_0.1A")
        clamp = TVS12()
        clamp["K"] += v12
        clamp["A"] += gnd
        _two(C, "10uF/25V", v12, gnd, "C25V")
        pico = PICO()
        d = SCHOTTKY()  # the board's 5 V ORed with USB's VBUS (the Pico's own diode)
        d["A"] += v5
        d["K"] += vsys
        pico["VSYS"] += vsys
        pico["3V3"] += v33  # the decoders' 3.3 V from the Pico's regulator
        for g in ("GND1", "GND2", "GND3", "GND4", "GND5", "GND6", "AGND", "GND8"):
            pico[g] += gnd
        for pin in ("RUN", "3V3_EN", "ADC_VREF", "VBUS"):
            pico[pin] += ckt.NC
        sck, mosi, miso, irq = Net("SCK"), Net("MOSI"), Net("MISO"), Net("IRQ")
        pico["GP2"] += sck
        pico["GP3"] += mosi
        pico["GP4"] += miso
        pico["GP12"] += irq
        _two(R, "1k", irq, v33)  # every reader's open-drain IRQ: 0.6 us to V_IH (boardcalc.irq_rise)
        _two(R, "47k", miso, v33)  # a defined MISO while nobody drives it
        safe = Net("SAFE_BOOT")
        pico["GP22"] += safe
        _two(HDR2, "", safe, gnd, "PinHeader_1x02")  # fit the shunt for safe boot, remove it to scan
        addr = [Net(f"CSA{k}") for k in range(4)]
        for k, gp in enumerate((6, 7, 8, 9)):
            pico[f"GP{gp}"] += addr[k]
        decoders = []
        for n, gp in enumerate((10, 11)):
            u = HC154()
            u["VCC"] += v33
            u["GND"] += gnd
            _two(C, "100nF", v33, gnd)
            for k, a in enumerate(("A0", "A1", "A2", "A3")):
                u[a] += addr[k]
            strobe = Net(f"STROBE{n}")
            pico[f"GP{gp}"] += strobe
            u["E1"] += strobe
            u["E2"] += gnd
            _two(R, "10k", strobe, v33)  # no chip selected while the Pico boots
            decoders.append(u)
        # SCK and MOSI through 3 x 74LVC244A: each output with 22 ohm in series to a group of
        # at most 2 ribbons (boardcalc.spi_edges: 9.9 ns edges instead of 91 ns at 12 mA)
        bufs = [LVC244() for _ in range(3)]
        outs_sck, outs_mosi = [], []
        for u in bufs:
            u["VCC"] += v33
            u["GND", "1OE", "2OE"] += gnd
            _two(C, "100nF", v33, gnd)
            for b in range(1, 5):
                u[f"1A{b}"] += sck
                u[f"2A{b}"] += mosi
                outs_sck.append(u[f"1Y{b}"])
                outs_mosi.append(u[f"2Y{b}"])
        groups = (readers + 1) // 2
        group_sck, group_mosi = [], []
        for g in range(groups):
            for outs, nets, name in ((outs_sck, group_sck, "SCK"), (outs_mosi, group_mosi, "MOSI")):
                y = Net(f"{name}_B{g}")
                y += outs[g]
                net = Net(f"{name}_G{g}")
                _two(R, "22R", y, net)
                nets.append(net)
        for outs in (outs_sck, outs_mosi):
            for y in outs[groups:]:
                y += ckt.NC
        nss = [decoders[0][f"Y{k}"] for k in range(16)] + [decoders[1][f"Y{k}"] for k in range(3)]
        exp_cs = [decoders[1][f"Y{3 + k}"] for k in range(3)]
        for k in range(readers):
            j = HDR14()
            nets = {"+5V": v5, "GND": gnd, "+12V": v12, "SCK": group_sck[k // 2], "MOSI": group_mosi[k // 2],
                    "MISO": miso, "NSS": nss[k], "EXP_CS": exp_cs[k >> 3], "IRQ": irq}
            for num, name in CONNECTOR.items():
                j[num] += nets[name]
        used = 3 + (readers + 7) // 8
        for k in range(used, 16):
            decoders[1][f"Y{k}"] += ckt.NC
        for k in range(readers, 16):
            decoders[0][f"Y{k}"] += ckt.NC
        for gp in _PICO_GP:
            if not pico[f"GP{gp}"].is_connected():
                pico[f"GP{gp}"] += ckt.NC  # GP0/GP1: UART link alternative, wired on a header if wanted
        return ckt


# --- checks and outputs -------------------------------------------------------------------------

BOARDS: dict[str, Callable[[], Circuit]] = {
    "row_strip": lambda: reader(ROW_ANTENNAS, "row_strip"),
    "rack_reader": lambda: reader(RACK_ANTENNAS, "rack_reader"),
    "controller": controller,
}
COUNT = {"row_strip": ROW_STRIPS, "rack_reader": RACK_READERS, "controller": 1}


@dataclass
class Check:
    """One board's ERC result: errors and warnings as SKiDL counted them, with the messages."""

    board: str
    errors: int
    warnings: int
    messages: list[str]
    parts: int
    nets: int


def erc(ckt: Circuit, board: str) -> Check:
    """Run SKiDL's ERC on ``ckt``; the messages it logged are collected."""
    messages: list[str] = []
    logger = skidl.erc_logger
    handler = logging.Handler()
    handler.emit = lambda record: messages.append(record.getMessage())  # type: ignore[method-assign]
    logger.addHandler(handler)
    try:
        ckt.ERC()
        errors, warnings = logger.error.count, logger.warning.count
    finally:
        logger.removeHandler(handler)
    return Check(board, errors, warnings, [m for m in messages if "found while" not in m],
                 len(ckt.parts), len(ckt.get_nets()))


def bom_lines(circuits: dict[str, Circuit]) -> list[tuple[str, str, int, float, float]]:
    """(part, what, count for one board set, EUR each at 1 set, EUR each at 10 sets)."""
    counts: Counter[tuple[str, str]] = Counter()
    for name, ckt in circuits.items():
        for part in ckt.parts:
            cls = part.fields.get("class", part.name) if hasattr(part, "fields") else part.name
            value = getattr(part, "value", "") or ""
            key = (part.name, value) if part.name in ("R", "C", "L") else (part.name, "")
            counts[(key[0] + (" " + key[1] if key[1] else ""), cls)] += COUNT[name]
    out = []
    for (label, cls), n in sorted(counts.items()):
        base = label.split(" ")[0]
        if base in KINDS:
            k = KINDS[base]
            out.append((f"{k.mpn}", k.what, n, k.each_1, k.each_10))
        else:
            p1, p10 = PASSIVE_PRICE.get(cls, PASSIVE_PRICE[base])
            out.append((label, _passive_what(cls), n, p1, p10))
    return out


def _passive_what(cls: str) -> str:
    return {"C0G1%": "C0G 1 %, 0603", "Lrf": "RF choke, SRF > 30 MHz, 0805", "Cbulk": "bulk capacitor",
            "R": "resistor 1 %, 0603", "C": "X7R capacitor, 0603, 25 V or more",
            "C25V": "X5R capacitor, 25 V, 0805 (+12 V: up to 16.2 V in a fault)", "L": "inductor, 0805"}.get(cls, cls)


def build(outdir: Path | None = None) -> dict[str, Check]:
    """ERC every board; with ``outdir``, also write its KiCad netlist and the BOM there."""
    results: dict[str, Check] = {}
    circuits: dict[str, Circuit] = {}
    for name, make in BOARDS.items():
        ckt = make()
        circuits[name] = ckt
        results[name] = erc(ckt, name)
        if outdir is not None:
            outdir.mkdir(parents=True, exist_ok=True)
            for part in ckt.parts:
                part.tag = f"{name}/{part.ref}"  # stable links from the netlist to a layout
            (outdir / f"{name}.net").write_text(str(ckt.generate_netlist(tool=KICAD8)))
    if outdir is not None:
        lines = bom_lines(circuits)
        rows = ["part,what,count,eur_each_1,eur_each_10"]
        rows += [f'"{p}","{w}",{n},{a:.3f},{b:.3f}' for p, w, n, a, b in lines]
        (outdir / "bom.csv").write_text("\n".join(rows) + "\n")
    return results


def bom_markdown(lines: list[tuple[str, str, int, float, float]]) -> list[str]:
    """The BOM as a Markdown table with totals for one board set and for each of ten."""
    out = ["| count | part | what | each (1 set) | each (10 sets) | total, 1 set |", "|---|---|---|---|---|---|"]
    t1 = t10 = 0.0
    for part, what, n, p1, p10 in sorted(lines, key=lambda x: -x[2] * x[3]):
        out.append(f"| {n} | {part} | {what} | {p1:.3f} EUR | {p10:.3f} EUR | {n * p1:.2f} EUR |")
        t1 += n * p1
        t10 += n * p10
    out.append(f"| | **electronics on the boards** | | | | **{t1:.0f} EUR** (10 sets: {t10:.0f} EUR each) |")
    return out


def main(argv: list[str]) -> int:
    """``python hardware/schematic.py [OUTDIR]``: exit 1 on any ERC error or warning."""
    if argv[:1] == ["--bom"]:
        lines = bom_lines({name: make() for name, make in BOARDS.items()})
        print("\n".join(bom_markdown(lines)))
        return 0
    outdir = Path(argv[0]) if argv else None
    bad = 0
    for name, check in build(outdir).items():
        print(f"{name}: {check.parts} parts, {check.nets} nets, {check.errors} ERC errors, {check.warnings} warnings")
        for m in check.messages:
            print("   ", m)
        bad += check.errors + check.warnings
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
