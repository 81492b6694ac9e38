"""Document units: the documents inside a document (the messages of an mbox, the attachments of a
message), each stored and fetched like any other, with its parent, position and span.

A unit's URL is its parent's with a unit fragment (``file:///m/inbox.mbox#unit=msg-3``,
``…#unit=msg-3/att-1``: :func:`trawl.urls.unit_url`), which its SURT key keeps, so a parent's
units follow it in the table and a prefix scan finds them (``trawl get --children``). The files
embedded in office documents and PDFs are units too (:mod:`trawl.units.embedded`).
"""

from trawl.units.embedded import EmbeddedUnits
from trawl.units.faq import FaqUnits
from trawl.units.mail import MailUnits
from trawl.units.passages import PassageUnits

__all__ = ["EmbeddedUnits", "FaqUnits", "MailUnits", "PassageUnits"]
