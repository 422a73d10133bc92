"""The checks: what a claim commits to, held against its evidence. One module per check (a package where
its reading splits by concept: `grounding/`, `proof/`, `altered/`), all of them registered, in verdict
order, in `registry.py`."""
