"""The worker: the second of epochcost's two programs (docs/architecture.md).

One worker process runs one measurement: it imports exactly one framework, builds the model,
trains it and writes events (engine/core/events.py) on its stdout. Everything that runs only
there lives in this package: its entry (main.py, `python -m engine.worker`, `epochcost-worker`),
the frameworks (frameworks/), the run skeleton and the measuring loop (measure/), the accuracy
loop (accuracy/) and loading a user's model file (workloads/).

The parent (the app, the command line and their packages) never imports this package, and this
package never imports the parent: both share only engine.core, engine.workloads,
engine.pricing and engine.measure (configs, events, the result's header, workload specs, device
probes), which import neither side (pyproject.toml's import-linter contracts).
"""
