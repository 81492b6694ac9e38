"""Pipeline machinery: stages, filters, counters and the audit trail."""

from trawl.pipeline.base import Audit, AuditEntry, Filter, Pipeline, RunContext, Source, Step, Verdict
from trawl.pipeline.stats import Stats

__all__ = ["Audit", "AuditEntry", "Filter", "Pipeline", "RunContext", "Source", "Stats", "Step", "Verdict"]
