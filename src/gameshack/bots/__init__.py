"""gameshack.bots"""
