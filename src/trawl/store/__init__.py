"""trawl.store"""
