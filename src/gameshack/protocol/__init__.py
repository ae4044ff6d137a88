"""gameshack.protocol"""
