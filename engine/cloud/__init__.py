"""The cloud side, measured: one run on a rented instance through SkyPilot (docs/cloud.md).

A feature of the parent (beside sweep, accuracy and plan): it builds the SkyPilot task (task.py,
its shell commands in commands.py), launches it and tears it down (launch.py, through the one
seam that reaches a cloud, skypilot.py), reads the result home from the job's log (log.py,
collect.py), and refreshes instance prices from SkyPilot's catalog (prices.py). On the instance
the worker side alone runs (`epochcost-worker`); nothing here is imported there.
"""
