"""hardware/schematic.py: the reader board's schematic passes SKiDL's ERC and makes netlists.

Any ERC error or warning fails: every pin is connected or marked no-connect, every net is
driven, no two outputs meet. The fault tests show the check catches a wrong connection and a
forgotten one.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

import pytest

skidl = pytest.importorskip("skidl", reason="SKiDL is in the `hardware` extra: pip install -e '.[hardware]'")

_PATH = Path(__file__).resolve().parent.parent / "hardware" / "schematic.py"
_spec = importlib.util.spec_from_file_location("schematic", _PATH)
assert _spec is not None and _spec.loader is not None
sch: Any = importlib.util.module_from_spec(_spec)
sys.modules["schematic"] = sch
_spec.loader.exec_module(sch)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    out = tmp_path_factory.mktemp("netlists")
    return sch.build(out), out


@pytest.fixture(scope="module")
def boards() -> dict[str, Any]:
    """Each board's circuit, made once for the tests that only read it."""
    return {name: make() for name, make in sch.BOARDS.items()}


def test_every_board_is_erc_clean(built: tuple[dict[str, Any], Path]) -> None:
    results, _ = built
    assert set(results) == {"row_strip", "rack_reader", "controller"}
    for name, check in results.items():
        assert (check.errors, check.warnings, check.messages) == (0, 0, []), name


def _nets(text: str) -> dict[str, set[tuple[str, str]]]:
    """Net name -> {(ref, pin)} from a KiCad netlist."""
    nets: dict[str, set[tuple[str, str]]] = {}
    for block in text.split("(net\n")[1:]:
        name = re.search(r'\(name "([^"]*)"\)', block)
        assert name is not None
        nets[name.group(1)] = set(re.findall(r'\(ref "([^"]+)"\)\s*\(pin "([^"]+)"\)', block))
    return nets


def _refs(text: str) -> dict[str, str]:
    """Ref -> part name (the libsource part) of every component."""
    out = {}
    for block in text.split("(comp\n")[1:]:
        ref = re.search(r'\(ref "([^"]+)"\)', block)
        part = re.search(r'\(part "([^"]+)"\)', block)
        assert ref is not None and part is not None
        out[ref.group(1)] = part.group(1)
    return out


def test_the_row_strip_netlist(built: tuple[dict[str, Any], Path]) -> None:
    results, out = built
    text = (out / "row_strip.net").read_text()
    refs, nets = _refs(text), _nets(text)
    assert len(refs) == results["row_strip"].parts
    names = list(refs.values())
    assert names.count("MFRC522") == 1 and names.count("MCP23S17") == 1
    assert names.count("BAR64-02V") == 15 and names.count("CELL_COIL") == 15 and names.count("2N7002BKS") == 15
    # the RF bus: 15 diode anodes, the 0 ohm link from the pad, the RX tap, the bias choke
    # from 5 V, the U.FL test point's DC block
    bus = nets["RFBUS"]
    assert sum(1 for ref, pin in bus if refs[ref] == "BAR64-02V" and pin == "2") == 15
    assert len(bus) == 19
    # the 16 dB pad: 68 ohm to ground either side of 150 ohm, DC blocked from the bus
    assert sorted(refs[r] for r, _ in nets["PAD_OUT"]) == ["C", "R", "R"]
    assert sorted(refs[r] for r, _ in nets["PAD_IN"]) == ["C", "R", "R"]
    # each antenna's drive line: a sink driver's output, its 12 V pull-up, the bias resistor, two gates
    for k in range(15):
        drive = nets[f"DRV{k}"]
        kinds = sorted(refs[ref] for ref, _ in drive)
        assert kinds == ["2N7002BKS", "2N7002BKS", "R", "R", "TBD62083AFWG"], k
    # the connector as sch.CONNECTOR says
    conn = next(ref for ref, name in refs.items() if name == "IDC_2x7")
    for pin, name in sch.CONNECTOR.items():
        assert (conn, str(pin)) in nets["+5V_IN" if name == "+5V" else name], pin


def test_the_controller_netlist(built: tuple[dict[str, Any], Path]) -> None:
    _, out = built
    text = (out / "controller.net").read_text()
    refs, nets = _refs(text), _nets(text)
    assert list(refs.values()).count("IDC_2x7") == 19
    assert len([1 for ref, _ in nets["IRQ"] if refs[ref] == "IDC_2x7"]) == 19
    assert (out / "bom.csv").read_text().count("\n") > 20


# Every supply pin and the rail it must be on (ERC cannot see voltages: a TVDD on +5 V, beyond
# the MFRC522's 4 V absolute maximum, or the sink drivers' COM on +5 V, which would clamp the
# idle lines' 12 V, both pass it).
SUPPLIES = {
    "MFRC522": {"PVDD": "+3V3", "DVDD": "+3V3", "AVDD": "+3V3", "TVDD": "+3V3", "SVDD": "+3V3", "EA": "+3V3",
                "DVSS": "GND", "AVSS": "GND", "TVSS": "GND", "TVSS2": "GND", "PVSS": "GND", "EP": "GND"},
    "MCP23S17": {"VDD": "+3V3", "VSS": "GND", "RESET": "+3V3"},
    "TBD62083AFWG": {"COM": "+12V", "GND": "GND"},
    "SN74LVC1G125": {"VCC": "+3V3", "GND": "GND"},
    "TLV75733P": {"IN": "+5V", "EN": "+5V", "OUT": "+3V3", "GND": "GND"},
    "SN74LVC244A": {"VCC": "+3V3", "GND": "GND"},
    "CD74HC154": {"VCC": "+3V3", "GND": "GND"},
    "MT3608_module": {"VIN": "+5V", "VOUT": "+12V_BOOST"},
    "SMBJ13A": {"K": "+12V", "A": "GND"},
    "PTC_0.1A": {"1": "+12V_BOOST", "2": "+12V"},
    "RPi_Pico": {"3V3": "+3V3", "VSYS": "VSYS"},
}


def _supply_faults(ckt: Any) -> tuple[int, list[tuple[str, str, str | None]]]:
    """Supply pins checked, and (ref, pin, net) of every one not on its rail."""
    checked, faults = 0, []
    for part in ckt.parts:
        for pin, rail in SUPPLIES.get(part.name, {}).items():
            net = part[pin].net
            name = net.name if net is not None else None
            checked += 1
            if name != rail:
                faults.append((part.ref, pin, name))
    return checked, faults


def test_every_supply_pin_is_on_its_rail(boards: dict[str, Any]) -> None:
    total = 0
    for board, ckt in boards.items():
        checked, faults = _supply_faults(ckt)
        assert faults == [], board
        total += checked
    assert total > 60


def test_the_supply_check_catches_tvdd_on_5v_and_com_on_5v() -> None:
    ckt = sch.reader(7, "rack_reader")
    with ckt:
        v5 = next(n for n in ckt.nets if n.name == "+5V")
        rc = next(p for p in ckt.parts if p.name == "MFRC522")
        rc["TVDD"].disconnect()
        rc["TVDD"] += v5
        sink = next(p for p in ckt.parts if p.name == "TBD62083AFWG")
        sink["COM"].disconnect()
        sink["COM"] += v5
    _, faults = _supply_faults(ckt)
    assert sorted((pin, net) for _, pin, net in faults) == [("COM", "+5V"), ("TVDD", "+5V")]
    assert sch.erc(ckt, "rack_reader").errors == 0  # what ERC alone lets through


def _unclamped(ckt: Any) -> list[tuple[str, str]]:
    """(ref, pin) of everything on the boost module's own output but the module and the fuse
    that leads to the clamped +12V: nothing else may see the module's up-to-28 V."""
    raw = [n for n in ckt.nets if n.name == "+12V_BOOST"]
    if not raw:
        return []
    return [(p.part.ref, p.name) for p in raw[0].pins if p.part.name not in ("MT3608_module", "PTC_0.1A")]


def test_only_the_fuse_sees_the_boost_modules_own_output() -> None:
    ckt = sch.controller()
    assert _unclamped(ckt) == [] and _supply_faults(ckt)[1] == []


def test_the_supply_check_catches_a_bypassed_12v_clamp() -> None:
    ckt = sch.controller()
    with ckt:
        raw = next(n for n in ckt.nets if n.name == "+12V_BOOST")
        cap = next(p for p in ckt.parts if p.value == "10uF/25V")
        cap[1].disconnect()
        cap[1] += raw  # a capacitor (or a reader's pin 14) on the module's side of the fuse
        clamp = next(p for p in ckt.parts if p.name == "SMBJ13A")
        clamp["K"].disconnect()
        clamp["K"] += raw  # and the clamp before the fuse: it could never trip it
    assert sorted(_unclamped(ckt)) == sorted([(cap.ref, "1"), (clamp.ref, "K")])
    _, faults = _supply_faults(ckt)
    assert [(pin, net) for _, pin, net in faults] == [("K", "+12V_BOOST")]
    assert sch.erc(ckt, "controller").errors == 0  # what ERC alone lets through


def test_12v_has_grounds_beside_it_on_the_connector() -> None:
    pins = {name: pin for pin, name in sch.CONNECTOR.items() if name == "+12V"}
    p12 = pins["+12V"]
    # neighbours: on the ribbon (n +- 1) and along a header row (n +- 2)
    for n in (p12 - 2, p12 - 1, p12 + 1, p12 + 2):
        if n in sch.CONNECTOR:
            assert sch.CONNECTOR[n] == "GND", n
    assert sorted(sch.CONNECTOR) == list(range(1, 15))


def _doc_pinout(text: str) -> dict[int, str]:
    """Pin -> the signal's first word from DESIGN.md's reader connector table."""
    section = text.split("**Reader connector**", 1)[1].split("**Strip address straps**", 1)[0]
    out = {}
    for row in re.findall(r"^\| (\d+) \| ([^|]+) \| (\d+) \| ([^|]+) \|$", section, re.M):
        for pin, sig in ((row[0], row[1]), (row[2], row[3])):
            word = sig.strip().split(" ")[0].rstrip(":")
            out[int(pin)] = {"+5": "+5V", "+12": "+12V"}.get(word, word)
    return out


def test_the_docs_pinouts_are_the_schematics() -> None:
    design = (_PATH.parent / "DESIGN.md").read_text()
    assert _doc_pinout(design) == sch.CONNECTOR
    readme = (_PATH.parent / "README.md").read_text()
    pin = {name: p for p, name in sch.CONNECTOR.items() if name not in ("GND", "+5V")}
    assert f"connector pins {pin['SCK']}, {pin['MOSI']}, {pin['MISO']}" in readme
    assert f"IRQ (pin {pin['IRQ']})" in readme and f"connector pin {pin['+12V']}" in readme
    assert f"pin {pin['NSS']}; outputs" in readme and f"to connector pin {pin['NSS']}" in readme
    assert f"addresses 0–7), pin {pin['EXP_CS']}" in readme


def test_the_controller_buffers_spi_in_groups_of_two(built: tuple[dict[str, Any], Path]) -> None:
    _, out = built
    text = (out / "controller.net").read_text()
    refs, nets = _refs(text), _nets(text)
    groups = [n for n in nets if n.startswith("SCK_G")]
    assert len(groups) == 10
    for g in groups:
        members = nets[g]
        assert sum(1 for ref, _ in members if refs[ref] == "IDC_2x7") in (1, 2)
        assert sum(1 for ref, _ in members if refs[ref] == "R") == 1  # the 22 ohm from a '244 output
    assert sorted(refs[r] for r, _ in nets["SCK"]) == ["RPi_Pico"] + ["SN74LVC244A"] * 12


def test_erc_catches_two_outputs_on_one_net() -> None:
    ckt = sch.reader(7, "rack_reader")
    with ckt:
        rc = next(p for p in ckt.parts if p.name == "MFRC522")
        rc["MFOUT"].disconnect()
        rc["MFOUT"] += rc["TX1"].net  # a second output onto the transmitter's line
    check = sch.erc(ckt, "rack_reader")
    assert check.errors >= 1
    assert any("OUTPUT" in m and "MFOUT" in m for m in check.messages)


def test_erc_catches_a_forgotten_connection() -> None:
    ckt = sch.controller()
    with ckt:
        pico = next(p for p in ckt.parts if p.name == "RPi_Pico")
        pico["GP12"].disconnect()  # the IRQ line no longer reaches the Pico
    check = sch.erc(ckt, "controller")
    assert check.warnings >= 1
    assert any("GP12" in m for m in check.messages)


def test_design_md_bom_is_the_schematics(boards: dict[str, Any]) -> None:
    design = (_PATH.parent / "DESIGN.md").read_text()
    lines = sch.bom_lines(boards)
    table = "\n".join(sch.bom_markdown(lines))
    assert table in design, "paste the output of: python hardware/schematic.py --bom"
