"""``python -m tcplab``: the tcplab command line."""

from tcplab._launch import main

main()
