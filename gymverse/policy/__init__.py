"""Policies that play games: language models, the games' own solvers, and baselines."""
