"""Workloads: named models with an input spec and the samples in one epoch of their data set."""
