"""The demo's games: a whole game per rule profile, as the players at the table play it.

Each was found once by a greedy move generator over the shipped lexicon (the best-scoring
play of each rack, the tiles drawn from a shuffled bag), with the table's moments put in:
a challenge that fails, a phony challenged and taken back, an exchange; kept are games of
15 to 25 plays with a bingo, both blanks played and a player going out with the bag empty.
:func:`scoreboard.demo.demo_script` turns one into a table script, mirroring it in the
engine (which checks every play, draw and ruling).

One turn a line (seats from 1; a blank is the letter it stands for, in lower case)::

    deal RACK1 RACK2                      the deal, after the draw for the first player (A beats E)
    play SEAT SQ:L SQ:L ... [| challenged SEAT] [| draw LETTERS]
    phony SEAT SQ:L ...                   a play the other seat challenges off; the tiles go back
    exchange SEAT OUT NEW                 rack letters back into the bag, as many new ones
    pass SEAT
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["DEMO_GAMES"]

_DE = """
deal THOMAEH BCUIHLI
play 1 H8:H I8:O J8:H K8:E L8:M | challenged 2 | draw WSÖEN
play 2 K6:B K7:L K9:I K10:C K11:H | draw GERTZ
play 1 I12:Ö J12:S K12:E L12:N | draw TAIS
play 2 K4:E K5:R | draw NS
exchange 1 WTA EÜE
play 2 H4:Z I4:U J4:N L4:I M4:G N4:S O4:T | draw OXQVLEJ
play 1 H1:S H2:I H3:E H5:T H6:E | draw CTEFH
phony 2 H12:Q
play 1 O1:H O2:Ü O3:F O5:E | draw PTEE
play 2 J2:X J3:O | draw R?
play 1 C3:T D3:A E3:P F3:E G3:T | draw TANLD
play 2 H12:L H13:i H14:V H15:E | draw INKM
play 1 M9:L M10:A M11:N M12:D M13:E M14:T | draw TWUGEU
play 2 D1:K D2:R D4:M | draw DNN
play 1 A1:W B1:E C1:C E1:T | draw YUNR
play 2 N6:I O6:N | draw ÄG
play 1 F2:Y F4:N | draw ME
play 2 E6:D F6:Ä G6:N I6:N | draw SFIO
play 1 N12:E O12:M | draw SE
play 2 J14:G K14:I L14:F N14:S | draw UNEM
play 1 O8:S O9:E O10:R O11:U | draw ?NSR
play 2 L2:M M2:E N2:N | draw URA
play 1 A5:G B5:N C5:U D5:S | draw ADKD
play 2 A6:U A7:R A8:U | draw IBS
play 1 F13:A G13:R I13:D | draw ARE
play 2 D14:J E14:O F14:B | draw E
play 1 B9:K C9:A D9:U E9:D F9:e G9:R H9:E
"""

_FR = """
deal ?VNS?LA ADECEUB
play 1 E8:V F8:L G8:A H8:N | challenged 2 | draw RAON
play 2 F2:E F3:D F4:U F5:C F6:A F7:B F9:E | draw AIZHPIG
play 1 E4:S E5:O E6:N | draw IEL
play 2 B2:P C2:A D2:G E2:I G2:Z | draw COURI
play 1 E9:R E10:A E11:I E12:E | draw USTD
play 2 D11:C D12:H D13:O D14:I D15:R | draw EDQSE
exchange 1 DLU XLL
phony 2 A2:Q
play 1 E13:S F13:T | draw UW
play 2 H7:E I7:Q J7:U K7:I L7:D M7:E N7:S | draw FIEARML
play 1 M8:L N8:U O8:X | draw AMK
play 2 K4:F K5:A K6:M K8:L K9:I K10:E K11:R | draw SGAEYSE
play 1 L1:K L2:a L3:W L4:A | draw TITO
play 2 C15:G E15:A F15:S G15:S H15:E I15:Y J15:E | draw HNTMPAL
play 1 H10:M I10:O J10:L L10:T M10:a N10:I O10:T | draw ENTVDNI
play 2 M1:H N1:A O1:N | draw ERA
play 1 H12:V I12:I J12:D K12:E L12:N M12:T | draw INOBRU
play 2 J14:P K14:A L14:L M14:M N14:E O14:R | draw OTUEJF
play 1 M3:U M4:N M5:I | draw SRE
play 2 O12:J O13:U O15:E | draw UOE
play 1 C3:B C4:E C5:R C6:R C7:O C8:N C9:S | draw EE
play 2 G3:U G4:T
play 1 G12:E
play 2 A4:F B4:E
play 1 N4:E
"""

_EN = """
deal MHOLAEI AASIHTL
play 1 D8:H E8:E F8:M G8:I H8:O I8:L J8:A | challenged 2 | draw XUODSGE
play 1 D9:E E9:X F9:O G9:D H9:U I9:S | draw LUZOAN
play 2 K3:L K4:A K5:T K6:H K7:I K8:S | draw RISEWE
play 1 L1:Z L2:O L3:N L4:A | draw REJF
exchange 2 WAR IET
play 1 M1:U N1:R O1:F | draw WER
play 2 E7:S F7:E G7:T | draw GNA
phony 1 C9:J
play 2 E10:I E11:N E12:G | draw IWC
play 1 N2:E N3:G N4:R N5:E N6:W | draw IA?VO
play 2 O6:E O7:W O8:E | draw RQO
play 1 J7:J L7:V M7:A | draw TDY
play 2 I4:C I5:O I6:R I7:A | draw ITON
play 1 N8:s N9:T N10:Y N11:L N12:O N13:I N14:D | draw ELEATPS
play 2 M13:Q M14:I | draw YB
play 1 H15:T I15:E J15:P K15:A L15:L M15:S | draw DV?EMP
play 2 C4:B D4:I E4:O F4:N G4:T H4:I | draw OABONA
play 1 F14:V G14:E H14:E I14:P | draw EARN
play 2 B3:Y C3:A D3:B E3:O F3:O | draw UNCGR
play 1 F12:e G12:N H12:D I12:A J12:R K12:M L12:E | draw ERIFTUK
play 2 B5:C C5:A D5:N E5:N | draw ID
play 1 F2:K G2:E H2:F I2:I J2:R
play 2 G1:D H1:I I1:G
play 1 K11:U L11:T
"""

DEMO_GAMES: Mapping[str, str] = {"de": _DE, "fr": _FR, "en": _EN, "en-tournament": _EN}
"""The demo game's turns by rule profile (``en-tournament`` plays the ``en`` game: its
double challenge costs the wrong challenger the same lost turn)."""
