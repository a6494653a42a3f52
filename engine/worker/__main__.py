"""`python -m engine.worker ...`: the worker process (engine/worker/main.py)."""

from engine.worker.main import entry

entry()
