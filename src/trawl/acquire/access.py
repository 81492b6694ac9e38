"""Who may read a file: owner, group, permission bits and POSIX ACL entries, as plain data.

A desktop or file-server crawl records this per document (``metadata["access"]``) so that a
search front end can show each user only what the file system would let them open. Everything
comes from the ``stat`` the walk makes anyway and, on Linux, one ``getxattr`` of
``system.posix_acl_access``; names are resolved through the password and group databases when
they can be (a file owned by a uid with no entry keeps its number and a ``None`` name).

The ACL extended attribute is the kernel's binary form (``linux/posix_acl_xattr.h``): a 4-byte
little-endian version (2), then 8-byte entries ``(tag: u16, perm: u16, id: u32)``.
"""

from __future__ import annotations

import errno
import os
import stat
import struct
from functools import lru_cache
from typing import Any

__all__ = ["ACL_XATTR", "AclError", "access_of", "decode_acl"]

ACL_XATTR = "system.posix_acl_access"
_ACL_VERSION = 2
_TAGS = {0x01: "user_obj", 0x02: "user", 0x04: "group_obj", 0x08: "group", 0x10: "mask", 0x20: "other"}
_NAMED = {"user", "group"}
# errno values that mean "no ACL here" rather than "something is wrong"
_NO_ACL = {errno.ENODATA, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS, errno.EPERM, errno.EACCES}


class AclError(ValueError):
    """An ACL attribute that is not the kernel's binary form (quoted in the message)."""


def _perm(bits: int) -> str:
    return ("r" if bits & 4 else "-") + ("w" if bits & 2 else "-") + ("x" if bits & 1 else "-")


def decode_acl(data: bytes) -> list[dict[str, Any]]:
    """The entries of a ``system.posix_acl_access`` value: ``{"tag", "id", "name", "perm"}`` each,
    ``id`` and ``name`` only for named users and groups. Raises :class:`AclError` on bad bytes."""
    if len(data) < 4 or (len(data) - 4) % 8:
        raise AclError(f"ACL attribute of {len(data)} bytes is not 4 + 8*n: {data[:16]!r}")
    (version,) = struct.unpack_from("<I", data)
    if version != _ACL_VERSION:
        raise AclError(f"ACL attribute version {version}, expected {_ACL_VERSION}: {data[:16]!r}")
    out: list[dict[str, Any]] = []
    for offset in range(4, len(data), 8):
        tag, perm, ident = struct.unpack_from("<HHI", data, offset)
        name = _TAGS.get(tag)
        if name is None:
            raise AclError(f"ACL entry with unknown tag {tag:#x} at byte {offset}")
        entry: dict[str, Any] = {"tag": name, "perm": _perm(perm)}
        if name in _NAMED:
            entry["id"] = ident
            entry["name"] = _user(ident) if name == "user" else _group(ident)
        out.append(entry)
    return out


@lru_cache(maxsize=1024)
def _user(uid: int) -> str | None:
    try:
        import pwd  # noqa: PLC0415 - POSIX only

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return None


@lru_cache(maxsize=1024)
def _group(gid: int) -> str | None:
    try:
        import grp  # noqa: PLC0415 - POSIX only

        return grp.getgrgid(gid).gr_name
    except (ImportError, KeyError):
        return None


def _read_acl(target: int | str) -> tuple[list[dict[str, Any]] | None, str | None]:
    """The ACL entries of an open file descriptor or path (None: no ACL), and a problem, if any."""
    getxattr = getattr(os, "getxattr", None)
    if getxattr is None:  # not Linux: no POSIX ACL attribute to read
        return None, None
    try:
        data = getxattr(target, ACL_XATTR)
    except OSError as exc:
        if exc.errno in _NO_ACL:
            return None, None
        return None, f"cannot read {ACL_XATTR}: {exc.strerror or exc}"
    try:
        return decode_acl(data), None
    except AclError as exc:
        return None, str(exc)


def access_of(st: os.stat_result, target: int | str | None = None) -> dict[str, Any]:
    """Who may read the file ``st`` describes: ``uid``, ``gid``, ``owner``, ``group`` (names, or
    None when unresolvable), ``mode`` (permission bits in octal, ``"0640"``) and ``acl`` (entries,
    or None when the file has no ACL beyond its mode). ``target``, the open file's descriptor or
    its path, is where the ACL is read; without it no ACL is looked for. A damaged ACL attribute
    gives ``acl_error`` and no entries, never an exception."""
    out: dict[str, Any] = {
        "uid": st.st_uid,
        "gid": st.st_gid,
        "owner": _user(st.st_uid),
        "group": _group(st.st_gid),
        "mode": f"{stat.S_IMODE(st.st_mode):04o}",
        "acl": None,
    }
    if target is not None:
        acl, problem = _read_acl(target)
        out["acl"] = acl
        if problem is not None:
            out["acl_error"] = problem
    return out
