"""Fault drills against a real deployment of the console (`make drills`; issue #18).

`stack.py` and `postgres.py` start and stop the parts; `deployment.py` makes the client and the people who use
it; one module per drill breaks something and counts what happened (`report.py` holds the table).
"""
