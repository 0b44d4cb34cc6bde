"""``python -m tcplab``: the tcplab command line."""

from tcplab.cli import main

main()
