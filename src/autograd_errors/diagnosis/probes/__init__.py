"""The probes, one module per family of entries; importing this package registers them all
(:mod:`autograd_errors.diagnosis.registry`)."""

from autograd_errors.diagnosis.probes import anomaly, graph, inplace, leaves, raised

__all__ = ["anomaly", "graph", "inplace", "leaves", "raised"]
