"""The decider: a claim's findings and its score made into one verdict, and the release calibration that
turns scores into a release threshold."""
