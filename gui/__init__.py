"""epochcost desktop app (PySide6 + pyqtgraph). Imports engine, never a framework."""
