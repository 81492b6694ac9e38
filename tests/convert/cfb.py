"""A small writer of OLE compound files ([MS-CFB] version 3), for test files no library here writes.

Outlook ``.msg`` files (and OLE files of odd kinds) are built from a tree: a ``dict`` whose values
are ``bytes`` (a stream) or another ``dict`` (a storage). Streams under 4096 bytes go in the mini
stream (64-byte mini sectors, held in the root entry's chain, with their own mini FAT), larger
ones in regular 512-byte sectors. Each storage's children are chained as right siblings in the
order [MS-CFB] sorts names (shorter first, then by upper case), a valid if unbalanced red-black
tree with every node black.
"""

from __future__ import annotations

import struct
from typing import Union

__all__ = ["Tree", "write_cfb"]

Tree = dict[str, Union[bytes, "Tree"]]

_SECTOR = 512
_MINI = 64
_CUTOFF = 4096
_FREE, _END, _FAT, _NONE = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF


def _key(name: str) -> tuple[int, str]:
    return len(name), name.upper()


def write_cfb(tree: Tree) -> bytes:
    """The compound file holding ``tree`` (see the module docstring)."""
    entries: list[dict[str, object]] = [{"name": "Root Entry", "type": 5, "data": b"", "kids": tree}]
    index = 0
    while index < len(entries):  # breadth first: every entry gets its number before links are set
        kids = entries[index]["kids"]
        if isinstance(kids, dict):
            names = sorted(kids, key=_key)
            first = len(entries)
            for name in names:
                value = kids[name]
                is_storage = isinstance(value, dict)
                entries.append(
                    {
                        "name": name,
                        "type": 1 if is_storage else 2,
                        "data": b"" if is_storage else value,
                        "kids": value if is_storage else None,
                    }
                )
            entries[index]["child"] = first if names else _NONE
            for k in range(len(names)):
                entries[first + k]["right"] = first + k + 1 if k + 1 < len(names) else _NONE
        index += 1
    sectors: list[bytes] = []
    fat: list[int] = []

    def chain(data: bytes, mark: int | None = None) -> int:
        if not data:
            return _END
        start = len(sectors)
        count = (len(data) + _SECTOR - 1) // _SECTOR
        for k in range(count):
            sectors.append(data[k * _SECTOR : (k + 1) * _SECTOR].ljust(_SECTOR, b"\x00"))
            fat.append(mark if mark is not None else (start + k + 1 if k + 1 < count else _END))
        return start

    mini = bytearray()
    minifat: list[int] = []
    starts: list[int] = []
    for entry in entries:
        data = entry["data"]
        if entry["type"] != 2 or not isinstance(data, bytes) or not data:
            starts.append(_END)
        elif len(data) >= _CUTOFF:
            starts.append(chain(data))
        else:
            first = len(mini) // _MINI
            count = (len(data) + _MINI - 1) // _MINI
            mini += data.ljust(count * _MINI, b"\x00")
            minifat.extend(first + k + 1 if k + 1 < count else _END for k in range(count))
            starts.append(first)
    entries[0]["data"] = bytes(mini)  # the root entry's stream is the mini stream
    starts[0] = chain(bytes(mini))
    first_minifat = chain(struct.pack(f"<{len(minifat)}I", *minifat)) if minifat else _END
    minifat_sectors = (len(minifat) * 4 + _SECTOR - 1) // _SECTOR
    directory = bytearray()
    for entry, start in zip(entries, starts, strict=True):
        name = str(entry["name"]).encode("utf-16-le")[:62] + b"\x00\x00"
        raw = bytearray(128)
        raw[: len(name)] = name
        struct.pack_into("<HBB", raw, 64, len(name), int(entry["type"]), 1)  # type: ignore[call-overload]
        struct.pack_into(
            "<III",
            raw,
            68,
            _NONE,
            int(entry.get("right", _NONE)),
            int(entry.get("child", _NONE)),  # type: ignore[call-overload]
        )
        data = entry["data"]
        struct.pack_into("<II", raw, 116, start, len(data) if isinstance(data, bytes) else 0)
        directory += raw
    directory += bytes(-len(directory) % _SECTOR)
    first_dir = chain(bytes(directory))
    # FAT sectors: enough to describe every sector, themselves included
    fat_count = 1
    while (len(sectors) + fat_count) > fat_count * (_SECTOR // 4):
        fat_count += 1
    if fat_count > 109:
        raise ValueError("too large for a header-only DIFAT")
    first_fat = len(sectors)
    fat.extend([_FAT] * fat_count)
    table = fat + [_FREE] * (fat_count * (_SECTOR // 4) - len(fat))
    packed = struct.pack(f"<{len(table)}I", *table)
    for k in range(fat_count):
        sectors.append(packed[k * _SECTOR : (k + 1) * _SECTOR])
    header = bytearray(_SECTOR)
    header[:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    struct.pack_into("<HHHHH", header, 24, 0x3E, 3, 0xFFFE, 9, 6)
    struct.pack_into("<IIII", header, 40, 0, fat_count, first_dir, 0)
    struct.pack_into("<IIIII", header, 56, _CUTOFF, first_minifat, minifat_sectors, _END, 0)
    difat = [first_fat + k for k in range(fat_count)] + [_FREE] * (109 - fat_count)
    struct.pack_into("<109I", header, 76, *difat)
    return bytes(header) + b"".join(sectors)
