"""The probes, one module per family of entries; importing this package registers them all
(:mod:`autograd_errors.diagnosis.registry`)."""

from autograd_errors.diagnosis.probes import graph, inplace

__all__ = ["graph", "inplace"]
