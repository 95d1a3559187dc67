"""seam.trace: the step timeline as a Chrome-trace/Perfetto JSON file (docs/tracing.md)."""

from ._C import trace as _t

start = _t.start
stop = _t.stop
active = _t.active
