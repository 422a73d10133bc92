"""Constitutions: named rules as data and the policy knobs of a run."""
