"""gameshack.store"""
