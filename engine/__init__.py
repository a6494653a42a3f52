"""epochcost engine: timed training in a worker process, cost arithmetic, results store.

Pure Python. Never imports Qt; imports torch or tensorflow only inside
engine/worker/frameworks, which only the worker loads (engine/worker/measure/session.py).
docs/architecture.md has the packages and their import rules.
"""

__version__ = "0.1.0"
