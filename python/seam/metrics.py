"""seam.metrics: the C++ API's metrics report and values (torch_xla's metrics module)."""

from ._C import metrics as _m


def report(server=False):
    """The same text as seam::metrics::CreateMetricReport()."""
    return _m.report(server)


metrics_report = report
counter_value = _m.counter_value
metric_total_samples = _m.metric_total_samples
metric_accumulator = _m.metric_accumulator
