"""trawl.acquire"""
