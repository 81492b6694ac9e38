"""trawl: turn the web, archives and local files into a clean, randomly accessible collection."""

from trawl.document import Document, Link, WarcPointer
from trawl.errors import TrawlError
from trawl.pipeline import Filter, Pipeline, RunContext, Source, Stats, Step, Verdict

__version__ = "0.1.0"

__all__ = [
    "Document",
    "Filter",
    "Link",
    "Pipeline",
    "RunContext",
    "Source",
    "Stats",
    "Step",
    "TrawlError",
    "Verdict",
    "WarcPointer",
    "__version__",
]
