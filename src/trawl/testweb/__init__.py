"""testweb: a deterministic generated web, served on loopback, for tests, benchmarks and the demo.

:class:`~trawl.testweb.site.TestWeb` decides what every host answers (from a seed);
:class:`~trawl.testweb.server.TestWebServer` serves it over HTTP/1.1 and logs every request.
"""

from trawl.testweb.server import LogEntry, ServerThread, TestWebServer
from trawl.testweb.site import FAULT_KINDS, SPECIAL_HOSTS, Reply, TestWeb

__all__ = ["FAULT_KINDS", "SPECIAL_HOSTS", "LogEntry", "Reply", "ServerThread", "TestWeb", "TestWebServer"]
