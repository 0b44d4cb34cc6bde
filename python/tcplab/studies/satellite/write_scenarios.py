"""``python -m tcplab.studies.satellite.write_scenarios DIR``: write the satellite study's example
scenarios and the MEO benchmark (``network.shipped_files``) into DIR.

The folder is named, never assumed: the builder once wrote into the package's own scenarios on
any call, ``--help`` included. The shipped copies are python/tcplab/scenarios/ (a test holds them
to the builder's output).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tcplab.studies.satellite.network import shipped_files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tcplab.studies.satellite.write_scenarios",
        description="Write the satellite study's example scenarios and the MEO benchmark "
        "(Goyal et al., 1998) as TOML files into DIR (the shipped copies are python/tcplab/scenarios/).",
    )
    parser.add_argument("dir", metavar="DIR", help="an existing folder to write the files into")
    out = Path(parser.parse_args(argv).dir)
    if not out.is_dir():
        parser.error(f"DIR: {out} is not a folder")
    for name, text in shipped_files().items():
        (out / name).write_text(text)
        print(f"wrote {out / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
