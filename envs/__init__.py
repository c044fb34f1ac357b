"""The built-in game library, one module per game, grouped by domain folder.

Games are found by walking these folders, so adding a game means adding its module (the class
named after its file); nothing else needs editing. ``import gymverse`` registers each as
``gymverse:<ClassName>`` without importing it.
"""

DOMAINS = ("tool_use", "games", "algorithms", "logic")
