"""Result tables written as CSV for spreadsheets: text cells that a spreadsheet would run as a
formula are defused, numbers stay numbers.

A cell starting with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage return) is read by
Excel, LibreOffice and Google Sheets as a formula, which can run commands or send data away
(OWASP, "CSV Injection"). tcplab's tables hold text from the user's input (factor levels, level
labels, error messages quoting names), so such text cells are written with a leading single
quote, OWASP's advice: the spreadsheet then shows the text as text. Numeric columns, and text
that is a plain number (``-1.5``, which a spreadsheet reads as that number), are unchanged.
"""

from __future__ import annotations

import io
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FORMULA_STARTS", "spreadsheet_safe", "write_csv"]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return not any(c.isalpha() for c in text)  # "-inf", "+nan" are text to a spreadsheet


def safe_cell(value: Any) -> Any:
    """``value`` with a leading ``'`` if it is text a spreadsheet would take for a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _is_number(value):
        return "'" + value
    return value


def spreadsheet_safe(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` with every formula-like text cell quoted (numeric columns untouched)."""
    from pandas.api.types import is_numeric_dtype

    out = df.copy()
    for column in out.columns:
        if not is_numeric_dtype(out[column]):
            out[column] = out[column].map(safe_cell)
    out.columns = [safe_cell(c) if isinstance(c, str) else c for c in out.columns]
    return out


def write_csv(df: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write ``df`` (no index) as a spreadsheet-safe CSV at ``path``, replacing the file (never
    writing through a link there)."""
    from tcplab.experiment.safe_files import replacing_path

    with replacing_path(path) as f, io.TextIOWrapper(f, encoding="utf-8", newline="") as text:
        spreadsheet_safe(df).to_csv(text, index=False)
