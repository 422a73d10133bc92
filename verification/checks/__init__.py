"""The checks: what a claim commits to, held against its evidence. One module per check, all of them
registered, in verdict order, in `registry.py`."""
