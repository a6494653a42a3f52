"""The cloud program: SkyPilot's side of a cloud run, a program of its own (main.py).

It runs with the cloud environment's Python (`epochcost env create --cloud`: the newest
SkyPilot in an environment of its own), never in the app's or the CLI's process, which never
import `sky`. It imports nothing of epochcost: the parent starts it by its file's path and
speaks JSON lines with it (engine/cloud/skypilot.py), as it does with the worker.
"""
