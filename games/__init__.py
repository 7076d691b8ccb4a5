"""Games: the pure rule engines (games.rules), the scenario runner and PAR sheets."""
