"""Reading the pcaps a run writes (``pcap = true`` on a link) into a DataFrame, with dpkt.

tcplab's captures are Ethernet/IPv4/TCP headers truncated after the TCP header (payloads are not
simulated), so a segment's length comes from the IPv4 total length, not from the bytes
captured. Sequence and ACK numbers are the raw 32-bit fields, as Wireshark shows them with
relative numbering off.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from tcplab.errors import UserError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["NotAPcap", "Segment", "iter_segments", "read_pcap", "without_handshake"]

_FLAGS = (("F", 0x01), ("S", 0x02), ("R", 0x04), ("P", 0x08), ("A", 0x10), ("E", 0x40), ("C", 0x80))


@dataclass(frozen=True)
class Segment:
    """One captured TCP segment."""

    time_s: float
    src: str
    sport: int
    dst: str
    dport: int
    tcp_flags: str  # "S", "SA", "A", "FA", ... (FIN, SYN, RST, PSH, ACK, ECE, CWR)
    seq: int
    ack: int
    win: int  # the raw 16-bit window field (scaled by the window scale the SYNs agreed)
    length: int  # payload bytes, from the IPv4 total length
    options: tuple[tuple[int, bytes], ...]


class NotAPcap(UserError, ValueError):
    """A file that is not a readable pcap: empty, of another format, or cut short. A UserError
    (the CLI reports it as the user's mistake) and a ValueError (what dpkt raised before for a
    bad header, so callers catching that still do)."""


def _not_a_pcap(path: str | os.PathLike[str], why: str) -> NotAPcap:
    return NotAPcap(
        f"{os.fspath(path)}: not a readable pcap file ({why}); expected a capture in the classic "
        "pcap format, as a link with pcap = true writes"
    )


def _frames(f: BinaryIO, path: str | os.PathLike[str]) -> Iterator[tuple[float, Any]]:
    """(time, Ethernet frame) of each record of the open pcap ``f``. dpkt's errors (NeedData for
    a file cut short, ValueError for a header of another format) do not name the file: the
    NotAPcap raised instead does."""
    import dpkt

    try:
        records = iter(dpkt.pcap.Reader(f))
    except dpkt.NeedData:
        raise _not_a_pcap(path, "empty or shorter than a pcap header") from None
    except (dpkt.Error, ValueError) as e:
        raise _not_a_pcap(path, str(e) or type(e).__name__) from None
    at, last = _FILE_HEADER, None  # where the next record starts; the last one's (offset, length)
    while True:
        try:
            ts, buf = next(records)
            frame = dpkt.ethernet.Ethernet(buf)
        except StopIteration:
            if last is not None and _captured_length(f, last[0]) not in (None, last[1]):
                raise _not_a_pcap(path, "its last packet record is cut short") from None
            return
        except dpkt.Error as e:
            raise _not_a_pcap(path, f"a packet record is cut short or damaged: {e}") from None
        last, at = (at, len(buf)), at + _RECORD_HEADER + len(buf)
        yield float(ts), frame


# The classic pcap format's header sizes, and the magic numbers of the files whose records have
# that 16-byte header (microsecond and nanosecond times, either byte order).
_FILE_HEADER, _RECORD_HEADER = 24, 16
_MAGICS = {0xA1B2C3D4: "<", 0xA1B23C4D: "<", 0xD4C3B2A1: ">", 0x4D3CB2A1: ">"}


def _captured_length(f: BinaryIO, record: int) -> int | None:
    """The captured length that the record at offset ``record`` says it has (None for a
    format whose record header is another size). dpkt hands back a record's data as read, so
    a file cut inside the data of its last record gave a shorter record and no error: a
    segment lost, or a frame too short to parse, skipped as "not TCP"."""
    import struct

    f.seek(0)
    order = _MAGICS.get(struct.unpack("<I", f.read(4))[0])
    if order is None:
        return None
    f.seek(record + 8)
    return struct.unpack(f"{order}I", f.read(4))[0]


def iter_segments(path: str | os.PathLike[str]) -> Iterator[Segment]:
    """The TCP segments of a pcap, in capture order (other packets are skipped). Raises NotAPcap
    (a UserError naming the file) for a file that is not a readable pcap."""
    import dpkt

    with Path(path).open("rb") as f:
        for ts, frame in _frames(f, path):
            ip = frame.data
            if not isinstance(ip, dpkt.ip.IP) or not isinstance(ip.data, dpkt.tcp.TCP):
                continue
            tcp = ip.data
            yield Segment(
                time_s=ts,
                src=socket.inet_ntoa(ip.src),
                sport=tcp.sport,
                dst=socket.inet_ntoa(ip.dst),
                dport=tcp.dport,
                tcp_flags="".join(name for name, bit in _FLAGS if tcp.flags & bit),
                seq=tcp.seq,
                ack=tcp.ack,
                win=tcp.win,
                length=ip.len - ip.hl * 4 - tcp.off * 4,
                options=tuple((int(k), bytes(v)) for k, v in dpkt.tcp.parse_opts(tcp.opts)),
            )


def read_pcap(path: str | os.PathLike[str]) -> pd.DataFrame:
    """One row per TCP segment: time_s, src, sport, dst, dport, tcp_flags, seq, ack, win, length.

    ``win`` is the raw field: without a SYN in the capture (``tcp.handshake = "none"``) the
    window scale is unknown, and a 256 KiB window shows as its scaled-down field. Raises
    NotAPcap (a UserError and a ValueError, naming the file) for a file that is not a readable
    pcap, FileNotFoundError for a missing one.
    """
    import pandas as pd

    # (tcp_flags, not flags: a column named flags would hide behind DataFrame.flags)
    columns = ["time_s", "src", "sport", "dst", "dport", "tcp_flags", "seq", "ack", "win", "length"]
    rows = [[getattr(s, c) for c in columns] for s in iter_segments(path)]
    return pd.DataFrame(rows, columns=columns)


def _connection(s: Segment) -> tuple[Any, ...]:
    a, b = (s.src, s.sport), (s.dst, s.dport)
    return (a, b) if a <= b else (b, a)


def without_handshake(
    path: str | os.PathLike[str], until_s: float | None = None, max_segments: int = 50_000
) -> Segment | None:
    """The first segment of the first connection the capture shows without a SYN (its flow
    started established: ``tcp.handshake = "none"``), or None.

    Reading stops at the first such connection, after ``until_s`` seconds of capture (say, past
    the last flow's start) or after ``max_segments`` segments: a long capture is not read whole.
    """
    seen: set[tuple[Any, ...]] = set()
    for i, s in enumerate(iter_segments(path)):
        if i >= max_segments or (until_s is not None and s.time_s > until_s):
            break
        conn = _connection(s)
        if conn not in seen:
            if "S" not in s.tcp_flags:
                return s
            seen.add(conn)
    return None


def capture_warning(path: str | os.PathLike[str], report: dict[str, Any] | None = None) -> str | None:
    """A warning for a capture that shows a connection without its handshake, or None.

    Without a SYN, Wireshark cannot know the window scale the ends agreed, so it shows the raw
    window field: Win=32768 for a 256 KiB window scaled by 8. ``report`` (the run's) bounds the
    reading to just past the last flow's start.
    """
    starts = [f.get("start_s") or 0.0 for f in (report or {}).get("flows", [])]
    until = max(starts) + 1.0 if starts else None
    seg = without_handshake(path, until_s=until)
    if seg is None:
        return None
    return (
        f"{Path(path).name}: the connection {seg.src}:{seg.sport} <-> {seg.dst}:{seg.dport} starts "
        'without a handshake (tcp.handshake = "none"), so the capture has no SYN: Wireshark cannot '
        "learn the window scale and shows the raw window field (Win=32768 for a 256 KiB window "
        'scaled by 8); tcp.handshake = "sender" or "receiver" captures the handshake'
    )
