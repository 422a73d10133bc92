"""The recovery loop: verify a candidate, judge it, repair it under a contract, verify again, stop."""
