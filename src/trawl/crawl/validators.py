"""Cheap change checks: when a ``HEAD`` can stand in for a ``GET`` on a revisit.

A revisit wants to know whether a page changed, at the least cost. The cheapest honest answer is
a conditional GET (``If-None-Match`` / ``If-Modified-Since`` → ``304``, no body). Some servers
ignore those headers and send the whole body every time; there a ``HEAD`` (the headers alone)
tells the same, *if* the server's validators (``ETag``, ``Last-Modified``) change exactly when
the page does. Many do not: an ETag made from the inode, a Last-Modified that is the time of the
request, a CMS that never updates either. So each host earns the HEAD:

* **conditional GET ignored**: a revisit that sent validators got ``200`` with the very
  validators it sent (a server that honoured them would have said ``304``); a ``304`` from the
  host later says it does honour them, and the HEAD is not needed;
* **validators trustworthy**: on the host's last ``trust`` full revisits, an unchanged page
  (its main-content digest) had unchanged validators and a changed page changed ones. A page
  that changed under unchanged validators is a *lie*: the host's HEADs are never trusted again
  in this crawl (a missed change costs more than any bytes saved). Validators that change while
  the page does not only cost a HEAD before the GET, so they break the run of agreements but
  do not condemn the host;
* a ``405``/``501`` to a HEAD: the host does not do HEAD.

Every ``audit``-th revisit that would be a HEAD is a full GET all the same, so a host whose
validators start lying is caught.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ValidatorTrust", "same_validators"]


def same_validators(
    old_etag: str | None, old_modified: str | None, etag: str | None, modified: str | None
) -> bool | None:
    """Do two responses carry the same validators? The ETag decides where both have one (weak
    or strong alike: a revisit asks "same page?", not "same bytes?"), else Last-Modified; ``None``
    when they share neither (nothing to tell by)."""
    if old_etag and etag:
        return old_etag.removeprefix("W/") == etag.removeprefix("W/")
    if old_modified and modified:
        return old_modified.strip() == modified.strip()
    return None


@dataclass(slots=True)
class ValidatorTrust:
    """What one host's validators have shown this crawl (see the module docstring)."""

    agreements: int = 0  # full revisits in a row whose validators told the truth
    lied: bool = False  # a page changed under unchanged validators
    ignores_conditional: bool = False  # a conditional GET got the full body, validators unchanged
    head_refused: bool = False  # a HEAD got 405 or 501
    heads: int = 0  # revisits that qualified for a HEAD (the audit counts these)

    def observe(self, validators_same: bool | None, content_changed: bool) -> str:
        """One full revisit: did the validators tell the truth? ``"agree"``, ``"lie"`` (a change
        they hid), ``"spurious"`` (they changed, the page did not) or ``"unknown"``."""
        if validators_same is None:
            self.agreements = 0
            return "unknown"
        if validators_same and content_changed:
            self.lied = True
            self.agreements = 0
            return "lie"
        if not validators_same and not content_changed:
            self.agreements = 0
            return "spurious"
        self.agreements += 1
        return "agree"

    def head_worth_it(self, trust: int, *, conditional: bool) -> bool:
        """Should a revisit to this host start with a HEAD? (``conditional``: the crawl sends
        conditional GETs, so only a host that ignores them needs the HEAD.)"""
        if self.lied or self.head_refused or self.agreements < trust:
            return False
        return self.ignores_conditional or not conditional

    def audit_due(self, every: int) -> bool:
        """Count one qualifying revisit; True when this one is to be a full GET all the same."""
        self.heads += 1
        return every > 0 and self.heads % every == 0
