"""trawl.decode"""
