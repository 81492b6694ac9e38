"""Document metadata, checked before it is trusted.

Metadata inside files is written by software, not by authors: Word stamps the licensed user's
name (``Administrator``, ``Microsoft Office User``, ``user``) on every file made from a template,
PDF producers leave ``Title: untitled`` or ``Microsoft Word - report.docx``, and clocks are wrong
(a creation date in 2099, or 1904-01-01 from a zeroed Mac timestamp). :func:`check_metadata`
moves every value that fails a check out of the trusted keys into ``metadata["untrusted"]`` and
lists why in ``metadata["metadata_flags"]`` (``author:template``, ``created:future``,
``created:before-1990``, ``title:placeholder``, ``modified:before-created``), so a ranker that
reads ``metadata["author"]`` only ever sees values that passed.

Dates are normalised to ISO 8601 (``2024-01-05T12:00:00+00:00``) by :func:`parse_date`, which
reads the forms documents use: ISO 8601/W3CDTF (OOXML, ODF, Atom), PDF ``D:YYYYMMDDHHmmSS+HH'mm'``
and RFC 822 (RSS ``pubDate``).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

__all__ = [
    "DATE_KEYS",
    "EARLIEST_PLAUSIBLE",
    "TEMPLATE_AUTHORS",
    "check_metadata",
    "parse_date",
]

#: Authors that name a machine, an installation or a template, not a person.
TEMPLATE_AUTHORS = frozenset(
    {
        "administrator", "admin", "microsoft office user", "microsoft office-gebruiker", "user",
        "owner", "author", "unknown", "default", "standard", "windows user", "benutzer", "utilisateur",
        "usuario", "python-docx", "openpyxl", "python-pptx", "anonymous", "unspecified", "test", "root",
        "valued customer", "preferred customer", "authorised user", "authorized user", "customer",
    }
)  # fmt: skip
_PLACEHOLDER_TITLES = re.compile(
    r"^(?:untitled(?:[ -]?\d+)?|no title|title|document\d*|doc\d+|slide \d+|powerpoint presentation|"
    r"microsoft (?:word|powerpoint|excel) - .*|presentation\d*|book\d*|sheet\d*|unspecified|"
    r"[\w-]+\.(?:docx?|pdf|pptx?|xlsx?|rtf|odt|tex|dvi|qxd|indd))$",
    re.IGNORECASE,
)
_PLACEHOLDER_VALUES = frozenset(
    {"unspecified", "untitled", "none", "n/a", "subject", "anonymous", "unknown", ""}
)
_GENERATED_BY = re.compile(
    r"^generated (?:by|using|with) [\w .-]+$", re.IGNORECASE
)  # writer libraries' defaults
#: Dates before this are clock errors (zeroed timestamps, 1904/1970 epochs), not document dates.
EARLIEST_PLAUSIBLE = datetime(1990, 1, 1, tzinfo=UTC)
#: The metadata keys that hold dates.
DATE_KEYS = ("created", "modified", "published")

_PDF_DATE = re.compile(
    r"^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*(?:(Z)|([+-])(\d{2})'?(\d{2})?'?)?"
)


def parse_date(value: object) -> datetime | None:
    """A timezone-aware datetime from the date forms documents carry, or ``None``."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text:
        return None
    if text.startswith("D:") or (text[:14].isdigit() and len(text) >= 8):
        return _pdf_date(text)
    try:
        parsed: datetime | None = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        parsed = None
    if parsed is None:
        try:
            parsed = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError, OverflowError):  # OverflowError: year 20299999999994
            return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _pdf_date(text: str) -> datetime | None:
    m = _PDF_DATE.match(text)
    if m is None:
        return None
    year, month, day, hour, minute, second, zulu, sign, tzh, tzm = m.groups()
    try:
        stamp = datetime(
            int(year), int(month or 1), int(day or 1), int(hour or 0), int(minute or 0), int(second or 0)
        )
    except ValueError:
        return None
    offset = timedelta(0)
    if sign and not zulu:
        offset = timedelta(hours=int(tzh or 0), minutes=int(tzm or 0))
        if sign == "-":
            offset = -offset
    try:
        return (stamp - offset).replace(tzinfo=UTC)
    except OverflowError:  # D:00010101000000+01'00'
        return None


def check_metadata(metadata: dict[str, Any], *, now: datetime | None = None) -> list[str]:
    """Normalise dates and move untrustworthy values aside (see the module docstring).

    Works in place on ``metadata`` and returns the flags it raised (also stored, when there are
    any, in ``metadata["metadata_flags"]``).
    """
    now = now or datetime.now(UTC)
    flags: list[str] = []
    untrusted: dict[str, Any] = {}

    def distrust(key: str, why: str) -> None:
        flags.append(f"{key}:{why}")
        untrusted[key] = metadata.pop(key)

    for key in ("author", "last_modified_by"):
        value = metadata.get(key)
        if isinstance(value, str):
            cleaned = " ".join(value.split())
            if not cleaned:
                metadata.pop(key)
            elif cleaned.lower() in TEMPLATE_AUTHORS:
                distrust(key, "template")
            else:
                metadata[key] = cleaned
    title = metadata.get("title")
    if isinstance(title, str):
        cleaned = " ".join(title.split())
        if not cleaned:
            metadata.pop("title")
        elif _PLACEHOLDER_TITLES.match(cleaned):
            distrust("title", "placeholder")
        else:
            metadata["title"] = cleaned
    for key in ("subject", "description", "keywords", "creator"):
        value = metadata.get(key)
        if isinstance(value, str) and (
            value.strip().lower() in _PLACEHOLDER_VALUES or _GENERATED_BY.match(value.strip())
        ):
            distrust(key, "placeholder")
    dates: dict[str, datetime] = {}
    for key in DATE_KEYS:
        if key not in metadata:
            continue
        parsed = parse_date(metadata[key])
        if parsed is None:
            distrust(key, "unparsable")
        elif parsed > now + timedelta(days=1):
            distrust(key, "future")
        elif parsed < EARLIEST_PLAUSIBLE:
            distrust(key, "before-1990")
        else:
            metadata[key] = parsed.isoformat()
            dates[key] = parsed
    if (
        "created" in dates
        and "modified" in dates
        and dates["modified"] < dates["created"] - timedelta(days=1)
    ):
        flags.append("modified:before-created")
    if untrusted:
        metadata.setdefault("untrusted", {}).update(untrusted)
    if flags:
        metadata["metadata_flags"] = flags
    return flags
