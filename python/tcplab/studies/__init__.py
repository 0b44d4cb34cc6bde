"""The studies ``tcplab reproduce`` knows: one package each, whose ``__init__`` declares
``STUDY`` (``tcplab.report.study.Study``); the framework and the CLI find them by discovery.

Names starting with '_' are helpers, not studies.
"""
