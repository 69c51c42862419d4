"""Measuring agents: matches, mbb/g with confidence intervals, exploitability, LBR, AIVAT."""
