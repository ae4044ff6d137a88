"""gameshack.service"""
