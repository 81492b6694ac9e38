"""trawl.convert"""
