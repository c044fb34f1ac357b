"""Helpers for testing gymverse without a model: a scripted OpenAI-compatible server."""
