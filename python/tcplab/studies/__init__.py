"""The studies ``tcplab reproduce`` knows: one module each, declaring ``STUDY`` (tcplab.report.study).

Modules whose names start with '_' are helpers, not studies.
"""
