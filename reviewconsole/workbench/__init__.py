"""The policy admin's workbench: a constitution tried on samples and stored cases, and its rules measured
against what reviewers decided."""
