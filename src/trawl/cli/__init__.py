"""trawl.cli"""
