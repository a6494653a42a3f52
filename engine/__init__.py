"""epochcost engine: timed training in a worker process, cost arithmetic, results store.

Pure Python. Never imports Qt; imports torch or tensorflow only inside engine.frameworks.session,
inside functions, in the worker process.
"""

__version__ = "0.1.0"
