"""The paper's printed results (Goyal et al., 1998), typed in as reference data: these are
THE PAPER'S numbers, never ours.

- Tables 4 and 7: efficiency and fairness of each configuration on WAN and MEO links (the same
  transcription as tests/data/goyal98_table4_wan.csv and goyal98_table7_meo.csv, which the
  ANOVA test checks against the paper's Tables 5, 6, 8 and 9).
- Table 10 (GEO): its body is missing from the text of the paper available to this project
  (only the caption survives), so there is no GEO reference per configuration.
- Tables 5, 8, 11: allocation of variation; Tables 6, 9, 12: main effects with 90% confidence
  intervals, for efficiency and fairness.
"""

from __future__ import annotations

import io

import pandas as pd

__all__ = ["ALLOCATION", "EFFECTS", "TABLE_NUMBERS", "results_table"]

_TABLE4_WAN = """\
drop_policy,tcp,buffer,efficiency,fairness
EPD,Vanilla,0.5 RTT,0.4245,0.5993
EPD,Vanilla,1 RTT,0.5741,0.9171
EPD,Vanilla,2 RTT,0.7234,0.9516
EPD,Reno,0.5 RTT,0.6056,0.8031
EPD,Reno,1 RTT,0.7337,0.9373
EPD,Reno,2 RTT,0.8373,0.9666
EPD,NewReno,0.5 RTT,0.8488,0.8928
EPD,NewReno,1 RTT,0.8866,0.9323
EPD,NewReno,2 RTT,0.8932,0.9720
EPD,SACK,0.5 RTT,0.8144,0.7937
EPD,SACK,1 RTT,0.8948,0.8760
EPD,SACK,2 RTT,0.9080,0.8238
SD,Vanilla,0.5 RTT,0.4719,0.6996
SD,Vanilla,1 RTT,0.6380,0.9296
SD,Vanilla,2 RTT,0.8125,0.9688
SD,Reno,0.5 RTT,0.6474,0.8230
SD,Reno,1 RTT,0.8043,0.9462
SD,Reno,2 RTT,0.8674,0.9698
SD,NewReno,0.5 RTT,0.8101,0.9089
SD,NewReno,1 RTT,0.8645,0.9181
SD,NewReno,2 RTT,0.8808,0.9709
SD,SACK,0.5 RTT,0.7384,0.6536
SD,SACK,1 RTT,0.8951,0.8508
SD,SACK,2 RTT,0.9075,0.8989
"""

_TABLE7_MEO = """\
drop_policy,tcp,buffer,efficiency,fairness
EPD,Vanilla,0.5 RTT,0.8476,0.9656
EPD,Vanilla,1 RTT,0.8788,0.9646
EPD,Vanilla,2 RTT,0.8995,0.9594
EPD,Reno,0.5 RTT,0.8937,0.9659
EPD,Reno,1 RTT,0.9032,0.9518
EPD,Reno,2 RTT,0.9091,0.9634
EPD,NewReno,0.5 RTT,0.9028,0.9658
EPD,NewReno,1 RTT,0.9105,0.9625
EPD,NewReno,2 RTT,0.9122,0.9616
EPD,SACK,0.5 RTT,0.9080,0.9517
EPD,SACK,1 RTT,0.9123,0.9429
EPD,SACK,2 RTT,0.9165,0.9487
SD,Vanilla,0.5 RTT,0.8358,0.9649
SD,Vanilla,1 RTT,0.8719,0.9684
SD,Vanilla,2 RTT,0.9009,0.9615
SD,Reno,0.5 RTT,0.8760,0.9688
SD,Reno,1 RTT,0.8979,0.9686
SD,Reno,2 RTT,0.9020,0.9580
SD,NewReno,0.5 RTT,0.8923,0.9665
SD,NewReno,1 RTT,0.8923,0.9504
SD,NewReno,2 RTT,0.8976,0.9560
SD,SACK,0.5 RTT,0.9167,0.9552
SD,SACK,1 RTT,0.9258,0.9674
SD,SACK,2 RTT,0.9373,0.9594
"""

_RESULTS = {"wan": _TABLE4_WAN, "meo": _TABLE7_MEO}

# Per link type: (results, allocation of variation, main effects).
TABLE_NUMBERS = {"wan": (4, 5, 6), "meo": (7, 8, 9), "geo": (10, 11, 12)}

# Tables 5, 8, 11. Per component: (SS efficiency, SS fairness, % efficiency, % fairness); the
# rows ssy/ss0/sst/se: (efficiency, fairness). Component names as factorial_anova's.
ALLOCATION: dict[str, dict[str, tuple[float, ...]]] = {
    "wan": {
        "ssy": (14.6897, 18.6266),
        "ss0": (14.2331, 18.3816),
        "sst": (0.4565, 0.2450),
        "tcp": (0.2625, 0.0526, 57.50, 21.49),
        "buffer": (0.1381, 0.1312, 30.24, 53.55),
        "drop_policy": (0.0016, 0.0002, 0.34, 0.09),
        "tcp x buffer": (0.0411, 0.0424, 8.99, 17.32),
        "tcp x drop_policy": (0.0104, 0.0041, 2.27, 1.68),
        "buffer x drop_policy": (0.0015, 0.0009, 0.33, 0.38),
        "se": (0.0156, 0.0472),
    },
    "meo": {
        "ssy": (19.3453, 22.1369),
        "ss0": (19.3334, 22.1357),
        "sst": (0.0119, 0.0012),
        "tcp": (0.0067, 0.0003, 56.75, 29.20),
        "buffer": (0.0026, 0.0001, 21.73, 7.70),
        "drop_policy": (0.0001, 0.0001, 0.80, 6.02),
        "tcp x buffer": (0.0016, 0.0001, 13.42, 10.16),
        "tcp x drop_policy": (0.0007, 0.0003, 6.11, 22.60),
        "buffer x drop_policy": (0.0001, 0.0001, 0.53, 6.03),
        "se": (0.0036, 0.0060),
    },
    "geo": {
        "ssy": (17.3948, 21.4938),
        "ss0": (17.3451, 21.4884),
        "sst": (0.0497, 0.0054),
        "tcp": (0.0344, 0.0008, 69.16, 14.47),
        "buffer": (0.0068, 0.0006, 13.65, 11.48),
        "drop_policy": (0.0001, 0.0001, 0.25, 2.31),
        "tcp x buffer": (0.0037, 0.0012, 7.54, 22.16),
        "tcp x drop_policy": (0.0025, 0.0014, 4.96, 26.44),
        "buffer x drop_policy": (0.0002, 0.0001, 0.41, 1.45),
        "se": (0.0182, 0.0139),
    },
}

# Tables 6, 9, 12: (factor, level) -> ((efficiency, low, high), (fairness, low, high)).
EFFECTS: dict[str, dict[tuple[str, str], tuple[tuple[float, float, float], tuple[float, float, float]]]] = {
    "wan": {
        ("tcp", "Vanilla"): ((-0.1627, -0.1734, -0.1520), (-0.0308, -0.0632, 0.0016)),
        ("tcp", "Reno"): ((-0.0208, -0.0315, -0.0101), (0.0325, 0.0000, 0.0649)),
        ("tcp", "NewReno"): ((0.0939, 0.0832, 0.1046), (0.0573, 0.0248, 0.0898)),
        ("tcp", "SACK"): ((0.0896, 0.0789, 0.1003), (-0.0590, -0.0914, -0.0265)),
        ("buffer", "0.5 RTT"): ((-0.1000, -0.1087, -0.0912), (-0.1034, -0.1299, -0.0769)),
        ("buffer", "1 RTT"): ((0.0163, 0.0076, 0.0250), (0.0382, 0.0117, 0.0647)),
        ("buffer", "2 RTT"): ((0.0837, 0.0749, 0.0924), (0.0651, 0.0386, 0.0916)),
        ("drop_policy", "EPD"): ((-0.0081, -0.0142, -0.0019), (-0.0030, -0.0217, 0.0157)),
        ("drop_policy", "SD"): ((0.0081, 0.0019, 0.0142), (0.0030, -0.0157, 0.0217)),
    },
    "meo": {
        ("tcp", "Vanilla"): ((-0.0251, -0.0276, -0.0226), (0.0037, -0.0004, 0.0078)),
        ("tcp", "Reno"): ((-0.0005, -0.0030, 0.0019), (0.0024, -0.0017, 0.0065)),
        ("tcp", "NewReno"): ((0.0038, 0.0013, 0.0062), (0.0001, -0.0040, 0.0042)),
        ("tcp", "SACK"): ((0.0219, 0.0194, 0.0244), (-0.0062, -0.0103, -0.0020)),
        ("buffer", "0.5 RTT"): ((-0.0134, -0.0154, -0.0114), (0.0027, -0.0007, 0.0060)),
        ("buffer", "1 RTT"): ((0.0016, -0.0005, 0.0036), (-0.0008, -0.0042, 0.0026)),
        ("buffer", "2 RTT"): ((0.0119, 0.0098, 0.0139), (-0.0019, -0.0052, 0.0015)),
        ("drop_policy", "EPD"): ((0.0020, 0.0006, 0.0034), (-0.0017, -0.0041, 0.0007)),
        ("drop_policy", "SD"): ((-0.0020, -0.0034, -0.0006), (0.0017, -0.0007, 0.0041)),
    },
    "geo": {
        ("tcp", "Vanilla"): ((-0.0295, -0.0420, -0.0170), (0.0037, -0.0058, 0.0133)),
        ("tcp", "Reno"): ((-0.0252, -0.0377, -0.0127), (0.0027, -0.0068, 0.0123)),
        ("tcp", "NewReno"): ((-0.0095, -0.0220, 0.0030), (0.0034, -0.0062, 0.0129)),
        ("tcp", "SACK"): ((0.0642, 0.0517, 0.0768), (-0.0098, -0.0194, -0.0003)),
        ("buffer", "0.5 RTT"): ((-0.0138, -0.0240, -0.0036), (0.0050, -0.0029, 0.0128)),
        ("buffer", "1 RTT"): ((-0.0099, -0.0201, 0.0004), (0.0020, -0.0058, 0.0098)),
        ("buffer", "2 RTT"): ((0.0237, 0.0134, 0.0339), (-0.0070, -0.0148, 0.0009)),
        ("drop_policy", "EPD"): ((0.0023, -0.0049, 0.0095), (-0.0023, -0.0078, 0.0033)),
        ("drop_policy", "SD"): ((-0.0023, -0.0095, 0.0049), (0.0023, -0.0033, 0.0078)),
    },
}


def results_table(case: str) -> pd.DataFrame | None:
    """The paper's Table 4 (WAN) or 7 (MEO) as observations (drop_policy, tcp, buffer,
    efficiency, fairness); None for GEO, whose Table 10 is not in the available text."""
    text = _RESULTS.get(case)
    return None if text is None else pd.read_csv(io.StringIO(text))
