"""GameShack: Rummy and Tile Rummy with friends or computer opponents, in the browser."""

__version__ = "0.1.0"
